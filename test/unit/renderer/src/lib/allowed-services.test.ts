import { describe, expect, it } from 'vitest';
import { addressProblem, allowedSpelling, toggled, unlistedEntries } from '../../../../../renderer/src/lib/allowed-services.js';
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

  it('refuses an empty field, what is no address, and an address already allowed, in words; accepts a new one', () => {
    expect(addressProblem('', [])).toBe('Type the recipient’s address, on Solana or Base, to add it');
    expect(addressProblem('not-an-address', [])).toBe(
      'not-an-address is not an address: a Solana one (base58, 32 bytes) or a Base one (0x and 40 hex digits)',
    );
    expect(addressProblem(`${RECIPIENT}0`, [])).toContain('is not an address');
    expect(addressProblem(RECIPIENT, ['web-search', RECIPIENT])).toBe('This address is already allowed');
    expect(addressProblem(RECIPIENT, ['web-search'])).toBeNull();
  });

  it('takes a Base recipient as the server does: any letter case, kept in its checksum spelling, allowed once (helper 192)', () => {
    const base = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(addressProblem(base.toLowerCase(), [])).toBeNull();
    expect(allowedSpelling(base.toLowerCase())).toBe(base);
    expect(allowedSpelling(RECIPIENT)).toBe(RECIPIENT);
    expect(addressProblem(base.toLowerCase(), [base])).toBe('This address is already allowed');
    // A mixed case that is no checksum is a mistyped address, as the server says.
    expect(addressProblem('0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', [])).toContain('is not an address');
    expect(unlistedEntries(['web-search', base, 'gone-service'], services)).toEqual({ addresses: [base], unknown: ['gone-service'] });
  });
});
