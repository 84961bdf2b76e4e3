// The built-in error catalog (spec/errors.yaml): every code svckit itself answers or refuses to boot with.
import type { ErrorIR } from '../../shared/ir.js';
import { asMap, entry } from './context.js';
import { errorFromFields } from './declarations.js';
import { CATALOG_SCHEMA, defaultCatalogFile, publishedSchemas } from './package-files.js';
import { Problems } from './problems.js';
import { readSpecFile } from './source.js';
import { StructureChecker } from './structure.js';

/** Loads and checks a catalog file; problems land in `problems` (nothing is thrown). */
export async function readCatalog(file: string, problems: Problems): Promise<ErrorIR[]> {
  const { root } = await readSpecFile(file, {}, problems);
  if (!root) return [];
  const structure = new StructureChecker(publishedSchemas(), new Set());
  const findings = structure.check(root, CATALOG_SCHEMA, '', []);
  for (const finding of findings) problems.add(finding.loc, finding.path, finding.message, finding.hint);
  const errors: ErrorIR[] = [];
  for (const item of asMap(entry(asMap(root), 'errors'))?.entries ?? []) {
    const fields = asMap(item.value);
    const error = fields && errorFromFields(item.key, fields, undefined);
    if (!error) continue;
    error.loc = item.keyLoc;
    errors.push(error);
  }
  return errors;
}

/** The built-in catalog, or the catalog in `file`. Throws SpecError when it has problems. */
export async function loadCatalog(file: string = defaultCatalogFile()): Promise<ErrorIR[]> {
  const problems = new Problems();
  const errors = await readCatalog(file, problems);
  problems.throwIfAny();
  return errors;
}
