// Test helpers for the upload reader: build multipart bodies byte by byte, feed them in any chunking, and
// read a session the way a handler would.
import { Readable } from 'node:stream';
import {
  startUpload,
  upload,
  type UploadOptions,
  type UploadSession,
} from '../../../runtime/http/upload/index.js';
import type { IncomingHttpHeaders } from 'node:http';
import { SvcError } from '../../../runtime/http/errors.js';

export const BOUNDARY = 'svc-test-boundary';
export const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

export interface PartSpec {
  name?: string;
  filename?: string;
  /** Raw Content-Disposition value, replacing the one built from name and filename. */
  disposition?: string;
  type?: string;
  /** Extra header lines, sent as given. */
  headers?: string[];
  data?: string | Buffer;
}

/** One part: its header lines, the blank line and its bytes (no delimiter). */
export function part(spec: PartSpec): Buffer {
  const lines: string[] = [];
  if (spec.disposition !== undefined) {
    lines.push(`Content-Disposition: ${spec.disposition}`);
  } else if (spec.name !== undefined) {
    const filename = spec.filename === undefined ? '' : `; filename="${spec.filename}"`;
    lines.push(`Content-Disposition: form-data; name="${spec.name}"${filename}`);
  }
  if (spec.type !== undefined) lines.push(`Content-Type: ${spec.type}`);
  lines.push(...(spec.headers ?? []));
  const head = Buffer.from(lines.map((line) => `${line}\r\n`).join('') + '\r\n', 'utf8');
  const data =
    typeof spec.data === 'string' ? Buffer.from(spec.data, 'utf8') : (spec.data ?? Buffer.alloc(0));
  return Buffer.concat([head, data]);
}

export interface BodyOptions {
  boundary?: string;
  preamble?: string | Buffer;
  epilogue?: string | Buffer;
  /** false leaves out the close delimiter. */
  close?: boolean;
}

/** A whole body from parts (PartSpec, or a Buffer sent as the part's raw bytes). */
export function multipart(parts: ReadonlyArray<PartSpec | Buffer>, options: BodyOptions = {}): Buffer {
  const boundary = options.boundary ?? BOUNDARY;
  const pieces: Buffer[] = [];
  if (options.preamble !== undefined) pieces.push(Buffer.from(options.preamble), Buffer.from('\r\n'));
  parts.forEach((spec, index) => {
    pieces.push(Buffer.from(`${index === 0 ? '' : '\r\n'}--${boundary}\r\n`));
    pieces.push(Buffer.isBuffer(spec) ? spec : part(spec));
  });
  if (options.close !== false) {
    pieces.push(Buffer.from(`${parts.length === 0 ? '' : '\r\n'}--${boundary}--`));
    if (options.epilogue !== undefined) pieces.push(Buffer.from(options.epilogue));
  }
  return Buffer.concat(pieces);
}

/** Splits a body into chunks of the given sizes, repeating the list until the body is used up. */
export function chunksOf(body: Buffer, sizes: number | readonly number[]): Buffer[] {
  const list = typeof sizes === 'number' ? [sizes] : sizes;
  const chunks: Buffer[] = [];
  let at = 0;
  for (let index = 0; at < body.length; index++) {
    const size = Math.max(1, list[index % list.length] as number);
    chunks.push(body.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

/** A small deterministic generator (mulberry32), for random chunkings that repeat run after run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomSizes(seed: number, count: number, max: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => 1 + Math.floor(random() * max));
}

/** A byte stream delivering exactly these chunks. */
export function streamOf(chunks: readonly Buffer[]): Readable {
  return Readable.from(chunks, { objectMode: false });
}

export const GENEROUS: UploadOptions = { maxBytes: 1 << 30, maxFiles: 1000, maxFields: 1000 };

export interface SessionOptions {
  limits?: Partial<UploadOptions>;
  headers?: IncomingHttpHeaders;
  chunks?: number | readonly number[];
}

/** An upload session over a body (or a stream), with generous limits unless told otherwise. */
export function sessionOf(body: Buffer | Readable, options: SessionOptions = {}): UploadSession {
  const stream = Buffer.isBuffer(body) ? streamOf(chunksOf(body, options.chunks ?? 65536)) : body;
  return startUpload({
    stream,
    headers: { 'content-type': CONTENT_TYPE, ...options.headers },
    limits: upload({ ...GENEROUS, ...options.limits }).limits,
  });
}

export interface ReadFile {
  field: string;
  filename: string;
  declaredType: string;
  declaredLength: number | undefined;
  data: Buffer;
}

export async function readStream(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Iterates every file and reads it to its end, as a handler storing every file would. */
export async function readAll(
  session: UploadSession,
): Promise<{ files: ReadFile[]; fields: Record<string, string> }> {
  const files: ReadFile[] = [];
  for await (const file of session.body.files) {
    files.push({
      field: file.field,
      filename: file.filename,
      declaredType: file.declaredType,
      declaredLength: file.declaredLength,
      data: await readStream(file.stream),
    });
  }
  return { files, fields: { ...session.body.fields } };
}

/** readAll's result with file bytes as base64: compared as strings, which is much faster than Buffers. */
export async function readAllEncoded(session: UploadSession) {
  const { files, fields } = await readAll(session);
  return { files: files.map((file) => ({ ...file, data: file.data.toString('base64') })), fields };
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    return error;
  }
  throw new Error('expected a rejection');
}

/** Lets pending stream work (nextTick, setImmediate) run. */
export function settle(turns = 3): Promise<void> {
  return new Promise((resolve) => {
    let left = turns;
    const step = () => (--left <= 0 ? resolve() : setImmediate(step));
    setImmediate(step);
  });
}
