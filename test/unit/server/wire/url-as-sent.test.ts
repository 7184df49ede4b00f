import { describe, expect, it } from 'vitest';
import { urlAsSent } from '../../../../server/wire/url-as-sent.js';

describe('a URL as fetch sends it', () => {
  it('spells one request one way: path escaped, origin with its "/", no #fragment', () => {
    expect(urlAsSent('https://api.example.com/a b#part')).toBe('https://api.example.com/a%20b');
    expect(urlAsSent('https://API.example.com')).toBe('https://api.example.com/');
    expect(urlAsSent('https://api.example.com/a%20b?q=1')).toBe('https://api.example.com/a%20b?q=1');
  });

  it('gives back a URL that does not parse as asked, for its caller to refuse or name', () => {
    expect(urlAsSent('not a url')).toBe('not a url');
    expect(urlAsSent('')).toBe('');
  });
});
