import { describe, expect, it } from 'vitest';
import { addressProblem, toggled, unlistedEntries } from '../../../../../renderer/src/lib/allowed-services.js';
import type { Service } from '../../../../../renderer/src/api/types.js';

const RECIPIENT = '93ugcw2QWBY1SQqi1cqZmZWPgYNUPdJ8VWx2ZeavDnrx';
const services = [{ id: 'demo-weather' }, { id: 'web-search' }] as Service[];

describe('the allowed services of the policy editor', () => {
  it('ticks an entry that was not ticked and unticks one that was, leaving the others in their order', () => {
    expect(toggled(['a', 'b'], 'c')).toEqual(['a', 'b', 'c']);
    expect(toggled(['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
    expect(toggled([], 'a')).toEqual(['a']);
  });

  it('sorts the entries the registry does not list into recipient addresses and the rest', () => {
    expect(unlistedEntries(['web-search', RECIPIENT, 'gone-service'], services)).toEqual({
      addresses: [RECIPIENT],
      unknown: ['gone-service'],
    });
    expect(unlistedEntries(['demo-weather'], services)).toEqual({ addresses: [], unknown: [] });
  });

  it('refuses an empty field, what is not a Solana address, and an address already allowed, in words; accepts a new one', () => {
    expect(addressProblem('', [])).toBe('Type the recipient’s Solana address to add it');
    expect(addressProblem('not-an-address', [])).toBe('not-an-address is not a Solana address (base58, 32 bytes)');
    expect(addressProblem(`${RECIPIENT}0`, [])).toContain('is not a Solana address');
    expect(addressProblem(RECIPIENT, ['web-search', RECIPIENT])).toBe('This address is already allowed');
    expect(addressProblem(RECIPIENT, ['web-search'])).toBeNull();
  });
});
