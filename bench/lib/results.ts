// bench/RESULTS.md holds one section per bench, each between markers, so benches update only their own.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
const TITLE =
  '# Benchmark results\n\nWritten by `npm run bench`; each section is replaced by the bench that owns it.\n';

/** Replaces (or appends) the section of bench `id`; the file is prettier-formatted, as `npm run lint` checks. */
export async function writeSection(id: string, markdown: string): Promise<string> {
  const start = `<!-- bench:${id} -->`;
  const end = `<!-- /bench:${id} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : TITLE;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  text =
    from >= 0 && to > from
      ? text.slice(0, from) + block + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  const config = (await resolveConfig(RESULTS)) ?? {};
  writeFileSync(RESULTS, await format(text, { ...config, filepath: RESULTS }));
  return RESULTS;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
