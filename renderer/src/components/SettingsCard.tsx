import { useDashboard } from '../state/store.js';
import { TimeZoneSetting } from './TimeZoneSetting.js';
import { PreferredRailSetting } from './PreferredRailSetting.js';

/** The owner's settings (GET /v1/settings), one row each: the time zone, the preferred rail. */
export function SettingsCard() {
  const settings = useDashboard((s) => s.settings);
  if (!settings) return null;
  return (
    <section className="card settings" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <TimeZoneSetting />
      <PreferredRailSetting />
    </section>
  );
}
