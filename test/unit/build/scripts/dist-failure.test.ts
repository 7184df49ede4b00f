import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the build scripts, without types
import { explainFetchFailure } from '../../../../build/scripts/dist-failure.mjs';

describe('npm run dist, when electron-builder cannot fetch', () => {
  it('names the host and what it was fetching, and how to go on', () => {
    const output = [
      '  • packaging       platform=linux arch=x64 electron=41.10.0 appOutDir=dist/desktop/linux-unpacked',
      '  ⨯ getaddrinfo ENOTFOUND github.com  failedTask=build stackTrace=RequestError: getaddrinfo ENOTFOUND github.com',
      '    at ClientRequest.<anonymous> (node_modules/got/dist/source/core/index.js:970:111)',
    ].join('\n');
    const said = explainFetchFailure(output) as string;
    expect(said).toMatch(
      /^npm run dist: electron-builder could not fetch Electron 41\.10\.0 for this platform: github\.com cannot be reached from this machine\./,
    );
    expect(said).toMatch(/ELECTRON_MIRROR/);
    expect(said).not.toMatch(/ClientRequest/);
  });

  it('says an HTTP refusal with the host, and nothing for a failure that is not a fetch', () => {
    const http = explainFetchFailure(
      '  ⨯ HttpError: 404 Not Found\n  "method: GET url: https://github.com/electron/electron/releases/download/v41.10.0/electron-v41.10.0-linux-x64.zip"',
    );
    expect(http).toMatch(/github\.com answered 404/);
    expect(explainFetchFailure('  ⨯ Cannot compute electron version from installed node modules')).toBeNull();
  });
});
