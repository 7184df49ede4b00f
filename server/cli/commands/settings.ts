import { keyClient } from '../../client/coffer-client.js';
import { CofferApiError } from '../../client/client-error.js';
import { bazaarBodySchema, describeIssues } from '../../wire/schemas.js';
import { printJson } from './print-json.js';
import { baseRailOpen } from './rail-lines.js';
import type { Bazaar } from '../../wire/answers/registry.js';
import type { Rail } from '../../wire/rails.js';
import { railName } from '../../wire/rail-words.js';
import { readOwnerConnection } from '../owner-connection.js';

type Out = NodeJS.WritableStream;

/**
 * `coffer settings [--time-zone ZONE|machine] [--preferred-rail sol|base|none] [--bazaar URL|off]
 * [--bazaar-refresh]`: the owner's time zone (where calendar budgets begin and the day a policy ends),
 * the rail x402 is paid on where a seller takes both, and Bazaar discovery (the facilitator whose x402
 * discovery list the registry shows); with a flag, set first. The owner's, through the running
 * Coffer's connection file.
 */
export async function settingsCommand(
  args: { timeZone?: string; preferredRail?: Rail | 'none'; bazaar?: string; bazaarRefresh?: boolean; dataDir?: string; json?: boolean },
  out: Out = process.stdout,
): Promise<number> {
  const owner = readOwnerConnection(args.dataDir);
  const api = keyClient(owner.url, { owner: owner.owner, key: owner.ownerKey });
  const change = {
    ...(args.timeZone !== undefined && { timeZone: args.timeZone === 'machine' ? null : args.timeZone }),
    ...(args.preferredRail !== undefined && { preferredRail: args.preferredRail === 'none' ? null : args.preferredRail }),
  };
  // What the Bazaar's step would refuse is refused before anything is saved: a command that fails
  // changes nothing (a time zone saved by a refused command moved the calendar budgets' windows).
  if (args.bazaar !== undefined && args.bazaar !== 'off') {
    const checked = bazaarBodySchema.safeParse({ facilitator: args.bazaar });
    if (!checked.success) {
      const { code, message } = describeIssues(checked.error);
      throw new CofferApiError(400, code, message);
    }
  }
  // A refresh of the facilitator set already is a read: made first, so its refusal (Bazaar off) saves nothing.
  const refreshedFirst = args.bazaarRefresh && args.bazaar === undefined ? await api.refreshBazaar() : null;
  const settings = Object.keys(change).length === 0 ? await api.settings() : await api.updateSettings(change);
  // The Bazaar's facilitator set, refreshed or read (its own endpoint): after the settings' lines in
  // words (its input checked above; a facilitator that fails to answer fails it after).
  const bazaarNow = async (): Promise<Bazaar> => {
    if (refreshedFirst !== null) return refreshedFirst;
    let bazaar = args.bazaar === undefined ? null : await api.setBazaar({ facilitator: args.bazaar === 'off' ? null : args.bazaar });
    if (args.bazaarRefresh) bazaar = await api.refreshBazaar();
    return bazaar ?? api.bazaar();
  };
  // For scripts: the settings' answer, with the Bazaar's under `bazaar`.
  if (args.json) return printJson({ ...settings, bazaar: await bazaarNow() }, out);
  const typedOtherwise =
    args.timeZone !== undefined && args.timeZone !== 'machine' && args.timeZone.toLowerCase() !== settings.timeZone.toLowerCase();
  out.write(
    `time zone  ${settings.timeZone} (${settings.timeZoneFrom === 'machine' ? "this machine's" : 'set by you'})${
      typedOtherwise ? `: ${args.timeZone} by its canonical name, ${offsetsWords(settings.timeZone)}` : ''
    }\n`,
  );
  // Shown where one is preferred or it was asked about, and by a plain `coffer settings` where the
  // Base rail is open (a choice there is to make); else it stays out, as before there were two rails.
  const plain = Object.keys(change).length === 0 && args.bazaar === undefined && !args.bazaarRefresh;
  if (settings.preferredRail !== null || args.preferredRail !== undefined || (plain && (await baseRailOpen(api)))) {
    out.write(railLine(settings.preferredRail));
  }
  const bazaar = await bazaarNow();
  // Off, and not asked about: the line stays out, as before Bazaar discovery.
  if (bazaar.state !== 'off' || args.bazaar !== undefined) out.write(bazaarLines(bazaar));
  return 0;
}

/**
 * What a zone's clock does over the year ("UTC-5 all year", "UTC-5, and UTC-4 in summer"): said
 * where a zone typed by another name was kept by its canonical one, so an abbreviation such as EST
 * (UTC-5 all year) is not taken for a place's time that moves in summer.
 */
function offsetsWords(timeZone: string, year = new Date().getUTCFullYear()): string {
  const offset = (month: number) =>
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'shortOffset' })
      .formatToParts(Date.UTC(year, month, 1))
      .find((part) => part.type === 'timeZoneName')!
      .value.replace('GMT', 'UTC');
  const [january, july] = [offset(0), offset(6)];
  if (january === july) return `${january} all year`;
  // The summer of the northern half is July; of the southern, January.
  const [winter, summer] =
    Number.parseFloat(january.slice(3) || '0') < Number.parseFloat(july.slice(3) || '0') ? [january, july] : [july, january];
  return `${winter}, and ${summer} in summer`;
}

/**
 * The preferred rail, in words: what it decides (a seller taking both rails: an x402 seller, or a
 * Coffer paywall whose 402 offers Base) and what decides without it.
 */
function railLine(rail: Rail | null): string {
  if (rail === null)
    return "rail       none preferred: where a seller takes Solana and Base, the agent's wallet that holds the amount pays (Solana first)\n";
  const name = railName(rail);
  return `rail       ${name} (set by you): where a seller takes Solana and Base, ${name} pays when the agent's wallet there holds the amount, else the other (coffer fetch --rail asks for one)\n`;
}

/** Where Bazaar discovery stands, in a few lines. */
function bazaarLines(bazaar: Bazaar): string {
  if (bazaar.facilitator === null)
    return 'bazaar     off (coffer settings --bazaar https://<facilitator> lists its x402 services in the registry)\n';
  const lines = [`bazaar     ${bazaar.facilitator}`];
  const age = bazaar.ageSeconds === null ? '' : ` (read ${ago(bazaar.ageSeconds)})`;
  const left = Object.entries(bazaar.leftOut ?? {})
    .filter(([, count]) => count > 0)
    .map(([reason, count]) => `${count} ${reason.replaceAll('_', ' ')}`)
    .join(', ');
  if (bazaar.state === 'loading') lines.push('           reading its list…');
  else if (bazaar.state === 'failed') lines.push('           no list yet');
  else lines.push(`           ${bazaar.listed} payable service${bazaar.listed === 1 ? '' : 's'} listed, ${bazaar.state}${age}`);
  if (left !== '') lines.push(`           left out: ${left}`);
  if (bazaar.error !== null) lines.push(`           last read failed: ${bazaar.error.message} (${bazaar.error.code})`);
  if (bazaar.note !== null) lines.push(`           ${bazaar.note}`);
  return `${lines.join('\n')}\n`;
}

const ago = (seconds: number) =>
  seconds < 60 ? `${seconds} s ago` : seconds < 3600 ? `${Math.floor(seconds / 60)} min ago` : `${Math.floor(seconds / 3600)} h ago`;
