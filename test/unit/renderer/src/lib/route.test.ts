import { describe, expect, it } from 'vitest';
import { hrefFor, parseRoute, titleFor } from '../../../../../renderer/src/lib/route.js';

describe('hash routes', () => {
  it('reads every page, and round-trips through hrefFor', () => {
    for (const route of [
      { page: 'overview' },
      { page: 'activity' },
      { page: 'approvals' },
      { page: 'approvals', approvalId: 'apr_1/2' },
      { page: 'registry' },
      { page: 'agent', agentId: 'research-bot' },
      { page: 'link', token: 'lnk_abc' },
    ] as const) {
      expect(parseRoute(hrefFor(route))).toEqual(route);
    }
    expect(parseRoute('')).toEqual({ page: 'overview' });
  });

  it('a malformed or unknown hash is the not-found page, never an exception (a blank page)', () => {
    for (const hash of ['#/agents/%E0%A4%A', '#/link/%', '#/nowhere', '#/activity/extra', '#/agents/a/b', '#/agents/']) {
      expect(() => parseRoute(hash)).not.toThrow();
      expect(parseRoute(hash).page, hash).toBe('not-found');
    }
  });

  it('names the page in the tab title', () => {
    expect(titleFor({ page: 'activity' })).toBe('Activity · Coffer');
    expect(titleFor({ page: 'agent', agentId: 'bot' }, 'Research bot')).toBe('Research bot · Coffer');
    expect(titleFor({ page: 'not-found', path: 'x' })).toBe('Not found · Coffer');
  });
});
