import { useMemo, useState, type FormEvent } from 'react';
import { settingsBodySchema } from '../../../server/wire/schemas.js';
import type { Settings } from '../api/types.js';
import { useDashboard } from '../state/store.js';
import { useAction } from '../lib/use-action.js';
import { SettingFormEnd } from './SettingFormEnd.js';
import { SettingRow } from './SettingRow.js';
import { browserTimeZone, differsFromBrowser, matchZones, offsetOf, zoneChoices } from '../lib/time-zone.js';

/**
 * The owner's time zone (a row of the Settings card), where day, week and month budgets begin and
 * where a day a policy ends on ends (GET /v1/settings). Which zone is in force, and whether it is this computer's
 * or one the owner named; Change opens a searchable list of zones, or "Follow this computer" (null).
 */
export function TimeZoneSetting() {
  const settings = useDashboard((s) => s.settings);
  if (!settings) return null;
  const browser = browserTimeZone();
  return (
    <SettingRow
      label="Time zone"
      testId="time-zone"
      value={
        <>
          <strong>{settings.timeZone}</strong>
          {withOffset(settings.timeZone, offsetOf(settings.timeZone))}
          {' · '}
          {settings.timeZoneFrom === 'machine' ? "this computer's" : 'set by you'}
        </>
      }
      hint={
        <>
          Day, week and month budgets begin at midnight here, and a day typed as a policy's end ends at that day's midnight here (an end
          already set keeps its moment when the zone changes).
          {differsFromBrowser(settings.timeZone, browser) &&
            ` This browser is in ${browser}; the agent pages show times in ${settings.timeZone}.`}
        </>
      }
      changeLabel="Change the time zone"
      form={(done) => <TimeZoneForm settings={settings} onDone={done} />}
    />
  );
}

/** A zone's offset beside its name, unless the name says it already ("UTC"). */
const withOffset = (name: string, offset: string) =>
  offset === '' || offset === name ? null : (
    <>
      {' '}
      <span className="muted">{offset}</span>
    </>
  );

/** The zone picked: this computer's (null), or one from the list, searched by name or offset. */
function TimeZoneForm({ settings, onDone }: { settings: Settings; onDone: () => void }) {
  const client = useDashboard((s) => s.client);
  const refresh = useDashboard((s) => s.refresh);
  const settingsChanged = useDashboard((s) => s.settingsChanged);
  const { busy, error, setError, submit } = useAction();
  const [follow, setFollow] = useState(settings.timeZoneFrom === 'machine');
  const [query, setQuery] = useState('');
  const [picked, setPicked] = useState(settings.timeZone);
  const choices = useMemo(() => zoneChoices([settings.timeZone]), [settings.timeZone]);
  const shown = useMemo(() => matchZones(choices, query), [choices, query]);
  const described = error ? 'time-zone-error' : undefined;

  const search = (text: string) => {
    setQuery(text);
    // The list shows what is picked: a search that leaves it out picks its first match (Enter saves it).
    const matches = matchZones(choices, text);
    if (!matches.some((choice) => choice.name === picked)) setPicked(matches[0]?.name ?? '');
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!client) return;
    const timeZone = follow ? null : picked;
    if (timeZone === '') {
      setError('Time zone: pick one from the list, or choose Follow this computer');
      return;
    }
    if (timeZone === (settings.timeZoneFrom === 'machine' ? null : settings.timeZone)) {
      onDone();
      return;
    }
    void submit(settingsBodySchema, { timeZone }, async (body) => {
      settingsChanged(await client.updateSettings(body));
      onDone();
      await refresh();
    });
  };

  return (
    <form className="time-zone-form" onSubmit={save} noValidate aria-label="Time zone setting">
      <div className="choice-row">
        <label className="check">
          <input type="radio" name="time-zone-from" checked={follow} onChange={() => setFollow(true)} />
          Follow this computer{settings.timeZoneFrom === 'machine' ? ` (${settings.timeZone})` : ''}
        </label>
        <label className="check">
          <input type="radio" name="time-zone-from" checked={!follow} onChange={() => setFollow(false)} />
          Choose a zone
        </label>
      </div>
      {!follow && (
        <div className="zone-picker">
          <input
            type="search"
            aria-label="Search time zones"
            placeholder="Search: a city, a region or an offset (+14)"
            value={query}
            onChange={(e) => search(e.target.value)}
            aria-describedby={described}
          />
          <select
            size={8}
            aria-label="Time zone"
            value={shown.some((choice) => choice.name === picked) ? picked : ''}
            onChange={(e) => setPicked(e.target.value)}
            aria-invalid={!!error}
            aria-describedby={described}
          >
            {shown.map((choice) => (
              <option key={choice.name} value={choice.name}>
                {choice.name === choice.offset ? choice.name : `${choice.name} (${choice.offset})`}
              </option>
            ))}
          </select>
          <p className="hint" role="status">
            {shown.length === 0 ? `No time zone matches “${query.trim()}”.` : `${shown.length} of ${choices.length} zones`}
          </p>
        </div>
      )}
      <p className="hint">
        Moving it moves where calendar budgets begin: a day's budget may start afresh sooner. Ends already set keep their moment.
      </p>
      <SettingFormEnd error={error} errorId="time-zone-error" busy={busy} saveLabel="Save time zone" onCancel={onDone} />
    </form>
  );
}
