// When a memory record goes, in words: "expires in 52 s", "expires in 4 min",
// "kept until 2027-02-27", or "kept". Records without an expiry are kept.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

function pad(n) {
  return String(n).padStart(2, "0");
}

/** The local calendar date of a moment, as YYYY-MM-DD. */
export function localDate(date) {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Milliseconds left before `expiresAt` (ISO 8601), Infinity when kept, NaN when unreadable. */
export function remainingMs(expiresAt, now = Date.now()) {
  if (!expiresAt) return Infinity;
  return Date.parse(expiresAt) - now;
}

/** The words for a record's expiry; null once it has expired. */
export function expiryText(expiresAt, now = Date.now()) {
  const left = remainingMs(expiresAt, now);
  if (left === Infinity || Number.isNaN(left)) return "kept";
  if (left <= 0) return null;
  if (left < 2 * MINUTE) return `expires in ${Math.ceil(left / 1000)} s`;
  if (left < HOUR) return `expires in ${Math.ceil(left / MINUTE)} min`;
  if (left < DAY) return `expires in ${Math.round(left / HOUR)} h`;
  return `kept until ${localDate(new Date(Date.parse(expiresAt)))}`;
}
