import { describe, expect, it } from 'vitest';
import { warningOf, withWarning, type Warning } from '../../../../../renderer/src/state/warnings.js';

const warning = (message: string): Warning => ({ agentId: 'alpha', about: 'budget', message, at: '2026-11-23T12:00:00.000Z' });

describe('the warnings a tab keeps', () => {
  it('the newest first, the few latest only', () => {
    let kept: Warning[] = [];
    for (const message of ['one', 'two', 'three', 'four']) kept = withWarning(kept, warning(message));
    expect(kept.map((w) => w.message)).toEqual(['four', 'three', 'two']);
  });

  it('the same words again are shown once, moved to the top', () => {
    const kept = withWarning([warning('two'), warning('one')], { ...warning('one'), at: '2026-11-23T13:00:00.000Z' });
    expect(kept.map((w) => [w.message, w.at])).toEqual([
      ['one', '2026-11-23T13:00:00.000Z'],
      ['two', '2026-11-23T12:00:00.000Z'],
    ]);
  });

  it('an event’s data is checked before it is kept', () => {
    expect(warningOf({ agentId: 'alpha', about: 'expiry', message: 'ends tomorrow', at: 'then' })).toEqual({
      agentId: 'alpha',
      about: 'expiry',
      message: 'ends tomorrow',
      at: 'then',
    });
    expect(warningOf({ agentId: 'alpha', about: 'weather', message: 'rain' })).toBeNull();
    expect(warningOf('alpha used 80%')).toBeNull();
  });
});
