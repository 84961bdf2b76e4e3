// The format worker: same bytes as formatting on this thread, and no file lost when the worker is gone.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { compile } from 'json-schema-to-typescript';
import { describe, expect, it } from 'vitest';
import { formatOptions, formatWith, TS_PARSER } from '../../generator/format.js';
import { emitOpenApiTypes, openApiTsOptions } from '../../generator/emit-openapi-types.js';
import { FormatPool, WorkerGoneError } from '../../generator/format-pool.js';
import { generateFiles } from '../../generator/index.js';
import { notesSpec } from './fixtures.js';
import { REPO_ROOT } from './project.js';

const outDir = `${REPO_ROOT}generated`;

describe('FormatPool', () => {
  it('gives the same files whether a worker formats part of them or not', async () => {
    const options = { ir: notesSpec(), outDir, source: 'svc.config.yaml', runtimeImport: 'svckit' };
    const alone = await generateFiles({ ...options, pool: new FormatPool(TS_PARSER, false) });
    const pool = new FormatPool(TS_PARSER, true);
    try {
      expect(await generateFiles({ ...options, pool })).toEqual(alone);
    } finally {
      await pool.close();
    }
  });

  it('formats on this thread when the worker is gone', async () => {
    const pool = new FormatPool(TS_PARSER, true);
    await pool.close();
    const options = await formatOptions(`${outDir}/x.ts`);
    const formatted = pool.submit('export const  a = {b:1}', options);
    await pool.drain(formatWith);
    expect(await formatted).toBe('export const a = { b: 1 };\n');
  });

  it('reports a file prettier cannot parse as an error, from either thread', async () => {
    for (const useWorker of [false, true]) {
      const pool = new FormatPool(TS_PARSER, useWorker);
      try {
        const broken = pool.submit('export const = ;', await formatOptions(`${outDir}/broken.ts`));
        const drained = pool.drain(formatWith);
        await expect(broken).rejects.toThrow();
        await drained;
      } finally {
        await pool.close();
      }
    }
  });

  it('prints openapi.d.ts in the worker as on this thread, while this thread formats the other files', async () => {
    const options = { ir: notesSpec(), outDir, source: 'svc.config.yaml', runtimeImport: 'svckit' };
    const alone = await generateFiles({ ...options, pool: new FormatPool(TS_PARSER, false) });
    const pool = new FormatPool(TS_PARSER, true, { openApiTypes: true });
    try {
      expect(pool.convertsOpenApi).toBe(true);
      expect(await generateFiles({ ...options, pool })).toEqual(alone);
    } finally {
      await pool.close();
    }
  });

  it('hands a conversion back when the worker is gone, and the build prints it on this thread', async () => {
    const pool = new FormatPool(TS_PARSER, true, { openApiTypes: true });
    const job = { openApiJson: '{}', options: openApiTsOptions(outDir), prefix: '', format: undefined };
    const conversion = pool.openApiTypes(job).catch((error: unknown) => error);
    await pool.close();
    expect(await conversion).toBeInstanceOf(WorkerGoneError);
    const json = JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} });
    const here = await emitOpenApiTypes({ openApiJson: json, header: '// h', outDir });
    expect(await emitOpenApiTypes({ openApiJson: json, header: '// h', outDir, pool })).toBe(here);
  });

  it('runs a module function in the worker and answers what it returned', async () => {
    const pool = new FormatPool(TS_PARSER, true);
    try {
      const schema = {
        title: 'Note',
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      };
      const options = { bannerComment: '', format: false };
      const module = pathToFileURL(createRequire(import.meta.url).resolve('json-schema-to-typescript')).href;
      const inWorker = await pool.runTask<string>({
        module,
        name: 'compile',
        args: [schema, 'Note', options],
      });
      expect(inWorker).toBe(await compile(schema as never, 'Note', options));
      expect(inWorker).toContain('export interface Note');
    } finally {
      await pool.close();
    }
  });

  it("rejects a task with the worker's error, and with WorkerGoneError when there is no worker", async () => {
    const pool = new FormatPool(TS_PARSER, true);
    try {
      const missing = pool.runTask({ module: 'node:fs', name: 'readFileSync', args: ['/no/such/svc-file'] });
      await expect(missing).rejects.toThrow(/ENOENT/);
      // A function that answers nothing answers null.
      expect(await pool.runTask({ module: 'node:console', name: 'debug', args: [] })).toBeNull();
    } finally {
      await pool.close();
    }
    await expect(pool.runTask({ module: 'node:os', name: 'cpus', args: [] })).rejects.toBeInstanceOf(
      WorkerGoneError,
    );
    const withoutWorker = new FormatPool(TS_PARSER, false);
    await expect(withoutWorker.runTask({ module: 'node:os', name: 'cpus', args: [] })).rejects.toBeInstanceOf(
      WorkerGoneError,
    );
  });
});
