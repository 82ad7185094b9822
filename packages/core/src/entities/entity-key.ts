import type { EntityKind } from '../contracts';
import { keywordTerms } from '../text/keyword-terms';
import { MONTH_NAMES, type TimeUnit } from '../temporal/time-mentions';

/** Prefix of date keys: `date:2023-05-07`, `date:2023-W18`, `date:2023-05`, `date:2023`. */
export const DATE_KEY_PREFIX = 'date:';

/**
 * The key an entity is linked by: its name's keyword terms (lower case,
 * accents and stop words dropped, stemmed), so "Charlotte's Web",
 * "charlotte's web" and "Charlottes Web" are one entity, and a question's
 * words find it as keyword search would. `''` when the name has no terms.
 */
export function entityKey(name: string): string {
  return keywordTerms(name).join(' ');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** ISO 8601 week of a day: its year and number. */
function isoWeek(ms: number): { year: number; week: number } {
  const d = new Date(ms);
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 3 - ((d.getUTCDay() + 6) % 7));
  const year = new Date(thursday).getUTCFullYear();
  return { year, week: Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * 86_400_000)) + 1 };
}

/** The key and readable name of a date at the precision it was written with. */
export function dateEntity(start: number, unit: TimeUnit): { key: string; name: string } {
  const d = new Date(start);
  const y = d.getUTCFullYear();
  const month = MONTH_NAMES[d.getUTCMonth()]!;
  const monthName = month[0]!.toUpperCase() + month.slice(1);
  switch (unit) {
    case 'day':
      return {
        key: `${DATE_KEY_PREFIX}${y}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
        name: `${d.getUTCDate()} ${monthName} ${y}`,
      };
    case 'week': {
      const w = isoWeek(start);
      return {
        key: `${DATE_KEY_PREFIX}${w.year}-W${pad(w.week)}`,
        name: `week of ${d.getUTCDate()} ${monthName} ${y}`,
      };
    }
    case 'month':
      return { key: `${DATE_KEY_PREFIX}${y}-${pad(d.getUTCMonth() + 1)}`, name: `${monthName} ${y}` };
    default:
      return { key: `${DATE_KEY_PREFIX}${y}`, name: String(y) };
  }
}

/** Entity kinds an input may name (`MemoryInput.entities`). */
export const ENTITY_KINDS: readonly EntityKind[] = [
  'person',
  'place',
  'organization',
  'product',
  'project',
  'event',
  'title',
  'name',
  'date',
];
