import { describe, expect, it } from 'vitest';
import { withoutCredential } from '../../../../../server/cli/commands/fetch-command.js';

describe("a held fetch's pick-up line", () => {
  it('names a credential header without its value; any other header as typed', () => {
    expect(withoutCredential('Authorization: Bearer sk-live-123')).toBe('Authorization: <as before, not printed>');
    expect(withoutCredential('cookie: session=abc')).toBe('cookie: <as before, not printed>');
    expect(withoutCredential('X-Api-Key:k-1')).toBe('X-Api-Key: <as before, not printed>');
    expect(withoutCredential('Accept: application/json')).toBe('Accept: application/json');
    expect(withoutCredential('X-Authorization-Note: none')).toBe('X-Authorization-Note: none');
  });
});
