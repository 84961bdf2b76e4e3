// Temporary URLs: signing, lifetimes, and every way a link can be altered or outlive its expiry.
import { describe, expect, it } from 'vitest';
import type { TemporaryUrlQuery } from '../../../../runtime/files/service/api.js';
import { MAX_TEMPORARY_URL_SECONDS } from '../../../../runtime/files/service/temporary-url.js';
import { buf, setup, SIGNING_KEY } from './helpers.js';

const START = Date.UTC(2026, 5, 1, 12, 0, 0);

async function withFile(options: Parameters<typeof setup>[0] = {}) {
  let now = START;
  const ctx = setup({
    urlSigningKey: SIGNING_KEY,
    urlBase: 'https://files.example/api',
    clock: () => now,
    ...options,
  });
  const file = await ctx.service.upload(buf('content'), { name: 'a', tenantId: 'org:acme' });
  return { ...ctx, file, advance: (ms: number) => (now += ms) };
}

function queryOf(url: string): TemporaryUrlQuery {
  const parsed = new URL(url);
  const id = decodeURIComponent(parsed.pathname.split('/').at(-2)!);
  const params = Object.fromEntries(parsed.searchParams) as Omit<TemporaryUrlQuery, 'id'>;
  return { id, ...params };
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const invalid = { status: 403, code: 'FILE_URL_INVALID' };

describe('temporaryUrl', () => {
  it('signs a URL of the documented shape that opens the file as an attachment', async () => {
    const { service, file } = await withFile();
    const { url, expiresAt } = await service.temporaryUrl(file.id, '15m', 'org:acme');
    expect(url).toMatch(
      new RegExp(
        `^https://files\\.example/api/files/${file.id}/signed\\?tenant=org%3Aacme&expires=\\d+&disposition=attachment&signature=[A-Za-z0-9_-]{43}$`,
      ),
    );
    expect(expiresAt).toBe(new Date(START + 15 * 60_000).toISOString());
    expect(queryOf(url).expires).toBe(String((START + 15 * 60_000) / 1000));
    const opened = await service.openTemporaryUrl(queryOf(url));
    expect(opened.record.id).toBe(file.id);
    expect(opened.disposition).toBe('attachment');
  });

  it('grants inline only when chosen', async () => {
    const { service, file } = await withFile();
    const { url } = await service.temporaryUrl(file.id, 60, 'org:acme', { disposition: 'inline' });
    expect((await service.openTemporaryUrl(queryOf(url))).disposition).toBe('inline');
  });

  it.each([
    ['id', (q: TemporaryUrlQuery) => ({ ...q, id: q.id.replace(/.$/, (c) => (c === '0' ? '1' : '0')) })],
    ['tenant', (q: TemporaryUrlQuery) => ({ ...q, tenant: 'org:acmf' })],
    ['expires', (q: TemporaryUrlQuery) => ({ ...q, expires: String(Number(q.expires) + 3600) })],
    ['disposition', (q: TemporaryUrlQuery) => ({ ...q, disposition: 'inline' })],
    [
      'signature',
      (q: TemporaryUrlQuery) => ({
        ...q,
        signature: q.signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
      }),
    ],
    // The last character carries 2 unused bits: a lenient base64url decode would read both spellings alike.
    [
      'signature spelling',
      (q: TemporaryUrlQuery) => ({
        ...q,
        signature: q.signature.replace(/.$/, (c) => ALPHABET[ALPHABET.indexOf(c) ^ 1]!),
      }),
    ],
    ['signature length', (q: TemporaryUrlQuery) => ({ ...q, signature: q.signature.slice(1) })],
    ['expires form', (q: TemporaryUrlQuery) => ({ ...q, expires: `${q.expires}.0` })],
    ['expires spelling', (q: TemporaryUrlQuery) => ({ ...q, expires: `0${q.expires}` })],
    ['missing field', (q: TemporaryUrlQuery) => ({ ...q, tenant: undefined }) as never],
  ])('refuses a tampered %s with 403 FILE_URL_INVALID', async (_, tamper) => {
    const { service, file } = await withFile();
    const { url } = await service.temporaryUrl(file.id, 60, 'org:acme');
    await expect(service.openTemporaryUrl(tamper(queryOf(url)))).rejects.toMatchObject(invalid);
  });

  it('refuses a URL signed with another key', async () => {
    const { service, file } = await withFile();
    const other = setup({ urlSigningKey: new Uint8Array(32).fill(9), store: undefined });
    const { url } = await service.temporaryUrl(file.id, 60, 'org:acme');
    await expect(other.service.openTemporaryUrl(queryOf(url))).rejects.toMatchObject(invalid);
  });

  it('refuses an expired URL the same way (fake clock)', async () => {
    const { service, file, advance } = await withFile();
    const { url } = await service.temporaryUrl(file.id, 60, 'org:acme');
    advance(59_000);
    await service.openTemporaryUrl(queryOf(url));
    advance(1_000);
    await expect(service.openTemporaryUrl(queryOf(url))).rejects.toMatchObject(invalid);
  });

  it('answers FILE_NOT_FOUND for a valid link to a deleted file', async () => {
    const { service, file } = await withFile();
    const { url } = await service.temporaryUrl(file.id, 60, 'org:acme');
    await service.delete(file.id, 'org:acme');
    await expect(service.openTemporaryUrl(queryOf(url))).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it.each([0, -5, 1.5, NaN, MAX_TEMPORARY_URL_SECONDS + 1, '8d', '500ms', 'soon', '', null])(
    'refuses expiresIn %s with FILE_URL_EXPIRY_INVALID naming maxSeconds',
    async (expiresIn) => {
      const { service, file } = await withFile();
      await expect(service.temporaryUrl(file.id, expiresIn as never, 'org:acme')).rejects.toMatchObject({
        status: 400,
        code: 'FILE_URL_EXPIRY_INVALID',
        details: { maxSeconds: 604_800 },
      });
    },
  );

  it('takes up to 7 days, as seconds or a duration', async () => {
    const { service, file } = await withFile();
    for (const expiresIn of [MAX_TEMPORARY_URL_SECONDS, '7d', '3600', '1h']) {
      await service.temporaryUrl(file.id, expiresIn, 'org:acme');
    }
  });

  it('needs urlSigningKey (OPTION_INVALID at call time) and a file in the tenant', async () => {
    const { service, file } = await withFile({ urlSigningKey: undefined });
    await expect(service.temporaryUrl(file.id, 60, 'org:acme')).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      option: 'urlSigningKey',
    });
    const signed = await withFile();
    await expect(signed.service.temporaryUrl(signed.file.id, 60, 'globex')).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });
});
