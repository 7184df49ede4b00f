import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript build script, without types.
import { ARTIFACT, artifactText, compileTestUsdc } from '../../../../../../build/scripts/compile-token.mjs';

describe('the committed test USDC artifact', () => {
  it('is what solc makes of TestUsdc.sol now (run `npm run compile:token` after changing it)', () => {
    const compiled = compileTestUsdc() as { compiler: string; bytecode: string };
    expect(compiled.compiler).toMatch(/^0\.8\.30\+/);
    expect(compiled.bytecode).toMatch(/^0x[0-9a-f]{2000,}$/);
    expect(readFileSync(new URL(`../../../../../../${ARTIFACT as string}`, import.meta.url), 'utf8')).toBe(artifactText(compiled));
  }, 60_000);
});
