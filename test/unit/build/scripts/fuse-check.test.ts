import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FuseVersion, FuseV1Options, flipFuses } from '@electron/fuses';
import { SENTINEL } from '@electron/fuses/dist/constants.js';
// @ts-expect-error a plain ES module of the build scripts, without types
import { REQUIRED_FUSES, fusesNotAsRequired } from '../../../../build/scripts/fuse-check.mjs';

/**
 * The packaged app's fuses, as the smoke runner reads them back, on an executable holding a fuse
 * wire as Electron's does (the sentinel, the wire's version and length, one byte a fuse: '1' on,
 * '0' off), in the order of Electron 41's wire.
 */
const ELECTRON_DEFAULTS = '10110001'; // RunAsNode, NODE_OPTIONS, --inspect and file:// privileges on
const config = JSON.parse(readFileSync(new URL('../../../../build/electron-builder.json', import.meta.url), 'utf8')) as {
  electronFuses: Record<string, boolean>;
};

let dir: string | null = null;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

function executable(wire: string): string {
  dir = mkdtempSync(join(tmpdir(), 'coffer-fuses-'));
  const file = join(dir, 'coffer');
  writeFileSync(
    file,
    Buffer.concat([
      Buffer.from('\x7fELF…code…'),
      Buffer.from(SENTINEL),
      Buffer.from([1, wire.length]),
      Buffer.from(wire),
      Buffer.from('…'),
    ]),
  );
  return file;
}

describe("the packaged app's fuses", () => {
  it("refuses Electron's defaults: the app could be run as Node, given NODE_OPTIONS or an inspector", async () => {
    const wrong = await fusesNotAsRequired(executable(ELECTRON_DEFAULTS), 'win32');
    expect(wrong as string[]).toEqual(
      expect.arrayContaining([
        'RunAsNode is enabled, not disabled',
        'EnableNodeOptionsEnvironmentVariable is enabled, not disabled',
        'EnableNodeCliInspectArguments is enabled, not disabled',
        'OnlyLoadAppFromAsar is disabled, not enabled',
        'EnableEmbeddedAsarIntegrityValidation is disabled, not enabled',
      ]),
    );
  });

  it('passes an app flipped as electron-builder.json says, the one rule written once for both', async () => {
    const file = executable(ELECTRON_DEFAULTS);
    // Everything but the instruction to sign again ad hoc (macOS on Apple Silicon, when the build is not signed after).
    const { resetAdHocDarwinSignature, ...fuses } = config.electronFuses;
    expect(resetAdHocDarwinSignature).toBe(true);
    const named = Object.fromEntries(
      Object.entries(fuses).map(([key, on]) => [
        FuseV1Options[`${key[0]!.toUpperCase()}${key.slice(1)}` as keyof typeof FuseV1Options],
        on,
      ]),
    );
    await flipFuses(file, { version: FuseVersion.V1, ...named });
    expect(await fusesNotAsRequired(file, 'win32')).toEqual([]);
    expect(
      Object.keys(fuses)
        .map((key) => `${key[0]!.toUpperCase()}${key.slice(1)}`)
        .sort(),
    ).toEqual(Object.keys(REQUIRED_FUSES as Record<string, boolean>).sort());
    // Asar integrity is checked on macOS and Windows only: Linux may leave it either way.
    const linux = executable('00000100');
    expect(await fusesNotAsRequired(linux, 'linux')).toEqual(['EnableCookieEncryption is disabled, not enabled']);
  });
});
