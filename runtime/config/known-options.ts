// The check every options object of the runtime shares: a key the function does not know is refused when the
// options are read (at start), naming the owner, the key and the keys it takes, so a misspelt or outdated
// option fails loudly instead of being silently ignored.
import { OptionError } from './option-errors.js';

/** The closest known key to a misspelt one, when it is close enough to be a likely typo. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/** The message for an unknown key: what was given, a likely intended key, and every key accepted. */
export function unknownOptionMessage(key: string, known: readonly string[]): string {
  const hint = closestKey(key, known);
  const accepted = known.length === 0 ? 'it takes no options' : `it takes ${known.join(', ')}`;
  return `unknown option "${key}"${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; ${accepted}.`;
}

/** OPTION_UNKNOWN: `<owner>: unknown option "<key>" (did you mean "<key>"?); it takes …`. */
export function unknownOption(owner: string, key: string, known: readonly string[]): OptionError {
  return new OptionError('OPTION_UNKNOWN', owner, key, unknownOptionMessage(key, known));
}

/**
 * Throws an OptionError OPTION_UNKNOWN "<owner>: unknown option …" for the first own key of `options` not in
 * `known`. Options that are not a plain object are left to the caller's own type check.
 */
export function rejectUnknownOptions(options: unknown, known: readonly string[], owner: string): void {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) return;
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw unknownOption(owner, key, known);
  }
}

/**
 * The keys of an options type, listed once and checked by the compiler against it (a key missing from the
 * list or not in the type fails to compile): `optionKeys<FooOptions>({ a: true, b: true })`.
 */
export function optionKeys<T>(keys: Record<keyof T, true>): readonly string[] {
  return Object.keys(keys);
}
