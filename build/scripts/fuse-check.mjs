// The fuses the packaged app must have (build/electron-builder.json `electronFuses`), read back from
// its executable, as `npx @electron/fuses read --app PATH` does. The smoke runner refuses an app
// whose fuses are not these: RunAsNode, NODE_OPTIONS and --inspect would let any process of the same
// user run code as Coffer's signed binary, which the keychain trusts with the wallet keys.
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';

/** A fuse switched on, as the wire holds it (the character '1'; '0' is off). */
const ENABLED = 0x31;

/** Each fuse and the state it must be in. */
export const REQUIRED_FUSES = {
  RunAsNode: false,
  EnableCookieEncryption: true,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  GrantFileProtocolExtraPrivileges: false,
};

/**
 * The fuses of the executable at `binary` that are not as required, in words; empty when all are.
 * Asar integrity is validated on macOS and Windows only (Electron's docs), so Linux may leave it on
 * or off.
 */
export async function fusesNotAsRequired(binary, platform = process.platform) {
  const wire = await getCurrentFuseWire(binary);
  const wrong = [];
  for (const [name, want] of Object.entries(REQUIRED_FUSES)) {
    if (name === 'EnableEmbeddedAsarIntegrityValidation' && platform === 'linux') continue;
    const state = wire[FuseV1Options[name]];
    const on = state === ENABLED;
    if (on !== want)
      wrong.push(`${name} is ${state === undefined ? 'absent' : on ? 'enabled' : 'disabled'}, not ${want ? 'enabled' : 'disabled'}`);
  }
  return wrong;
}
