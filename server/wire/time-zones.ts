/**
 * Time zones by their IANA names, as this runtime's Intl knows them: the owner's (settings), a
 * policy's end, and the calendar windows of budgets read them.
 */
/** A time zone by its IANA name ("Europe/Berlin", "UTC"), as this runtime's Intl knows it. */
export const isTimeZone = (name: string): boolean => canonicalTimeZone(name) !== null;

/**
 * A time zone's one spelling, as this runtime's Intl writes it ("utc" and "Etc/UTC" are "UTC",
 * "europe/berlin" is "Europe/Berlin"), by the name people know it now where the runtime's is an older
 * one ("Asia/Kolkata", which Node 20's ICU writes "Asia/Calcutta"); null for a name it does not know.
 */
export function canonicalTimeZone(name: string): string | null {
  if (name.length === 0) return null;
  try {
    return currentZoneName(new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone);
  } catch {
    return null;
  }
}

/**
 * Zones a runtime lists and writes under a name since changed (its ICU keeps the older one): each is
 * named as people know it now, where the runtime takes that name too.
 */
const RENAMED: Readonly<Record<string, string>> = {
  'Africa/Asmera': 'Africa/Asmara',
  'America/Coral_Harbour': 'America/Atikokan',
  'America/Godthab': 'America/Nuuk',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'Europe/Kiev': 'Europe/Kyiv',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Ponape': 'Pacific/Pohnpei',
  'Pacific/Truk': 'Pacific/Chuuk',
};

const knownZone = (timeZone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
};

/** The name a zone the runtime lists (or writes) is known by now: "Asia/Kolkata" for "Asia/Calcutta". */
export const currentZoneName = (listed: string): string => {
  const renamed = RENAMED[listed];
  return renamed !== undefined && knownZone(renamed) ? renamed : listed;
};

/** Whether two names are one zone ("Etc/UTC" and "UTC"; "Asia/Kolkata" and "Asia/Calcutta"), as this runtime's Intl knows them. */
export const sameTimeZone = (a: string, b: string): boolean => (canonicalTimeZone(a) ?? a) === (canonicalTimeZone(b) ?? b);
