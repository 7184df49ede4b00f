import { useState, type FormEvent } from 'react';
import { settingsBodySchema } from '../../../server/wire/schemas.js';
import type { Settings } from '../api/types.js';
import type { Rail } from '../../../server/wire/rails.js';
import { railName } from '../../../server/wire/rail-words.js';
import { useBaseOff, useDashboard } from '../state/store.js';
import { useAction } from '../lib/use-action.js';
import { SettingFormEnd } from './SettingFormEnd.js';
import { SettingRow } from './SettingRow.js';

/**
 * Which payments the choice is for: a 402 answered through Coffer (coffer fetch, fetch_paid,
 * payingFetch). A payment asked for directly names its rail, or is on Solana: an owner who set Base
 * and saw `coffer pay` refused on Solana was not told this.
 */
const SCOPE =
  'It chooses for the paid URLs an agent calls through Coffer (coffer fetch, MCP fetch_paid, payingFetch); a payment asked for directly (coffer pay, /v1/pay) is on the rail it names, Solana unless told.';

/**
 * The rail an agent pays on where the seller takes both (an x402 seller, or a Coffer paywall whose
 * 402 offers Base; GET /v1/settings' `preferredRail`): the owner's, where the agent's wallet there
 * holds the amount, else the wallet that does (Solana first). What the agent asks for (`rail`) still
 * comes first.
 */
export function PreferredRailSetting() {
  const settings = useDashboard((s) => s.settings);
  // Where the Base rail is off there is one rail to pay on (a preference set before still shows, to be cleared).
  const baseOff = useBaseOff();
  if (!settings || (baseOff && settings.preferredRail === null)) return null;
  const preferred = settings.preferredRail;
  return (
    <SettingRow
      label="Preferred rail"
      testId="preferred-rail"
      value={
        <>
          <strong>{preferred === null ? 'None preferred' : railName(preferred)}</strong>
          {preferred !== null && ' · set by you'}
        </>
      }
      hint={`${
        preferred === null
          ? 'Where a seller takes Solana and Base, the agent pays from the wallet that holds the amount, Solana first.'
          : `Where a seller takes Solana and Base, the agent pays on ${railName(preferred)} when its wallet there holds the amount, else from the other.`
      } ${SCOPE}`}
      changeLabel="Change the preferred rail"
      form={(done) => <PreferredRailForm settings={settings} baseOff={baseOff} onDone={done} />}
    />
  );
}

/** The choices; Base only where its rail is open (or it is the preference set before, to be moved from). */
function PreferredRailForm({ settings, baseOff, onDone }: { settings: Settings; baseOff: boolean; onDone: () => void }) {
  const client = useDashboard((s) => s.client);
  const settingsChanged = useDashboard((s) => s.settingsChanged);
  const { busy, error, submit } = useAction();
  const [picked, setPicked] = useState<Rail | null>(settings.preferredRail);

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    if (picked === settings.preferredRail) {
      onDone();
      return;
    }
    void submit(settingsBodySchema, { preferredRail: picked }, async (body) => {
      settingsChanged(await client.updateSettings(body));
      onDone();
    });
  };
  const choice = (rail: Rail | null, label: string) => (
    <label className="check" key={rail ?? 'none'}>
      <input type="radio" name="preferred-rail" checked={picked === rail} onChange={() => setPicked(rail)} />
      {label}
    </label>
  );

  return (
    <form className="preferred-rail-form" onSubmit={save} noValidate aria-label="Preferred rail setting">
      <div className="choice-row">
        {choice(null, 'Where the funds are (Solana first)')}
        {choice('sol', 'Solana')}
        {(!baseOff || settings.preferredRail === 'base') && choice('base', 'Base')}
      </div>
      <SettingFormEnd error={error} busy={busy} saveLabel="Save preferred rail" onCancel={onDone} />
    </form>
  );
}
