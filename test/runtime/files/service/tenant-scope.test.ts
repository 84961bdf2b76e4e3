// Tenant scope and the tenant's folder on the disk.
import { describe, expect, it } from 'vitest';
import { assertStorageKey } from '../../../../runtime/files/disks/index.js';
import { SINGLE_TENANT } from '../../../../runtime/files/record.js';
import { storageKey, tenantSegment } from '../../../../runtime/files/service/storage-key.js';
import { resolveTenant } from '../../../../runtime/files/service/tenant-scope.js';
import { buf, setup } from './helpers.js';

describe('resolveTenant', () => {
  it('uses @single without tenancy and refuses without a tenant when tenancy is on', () => {
    expect(resolveTenant(undefined, undefined, false)).toBe(SINGLE_TENANT);
    expect(() => resolveTenant(undefined, undefined, true)).toThrow(
      expect.objectContaining({ status: 400, code: 'FILE_TENANT_REQUIRED' }),
    );
  });

  it('refuses an explicit @single with FILE_TENANT_RESERVED', () => {
    for (const tenancy of [false, true]) {
      expect(() => resolveTenant('@single', undefined, tenancy)).toThrow(
        expect.objectContaining({ status: 400, code: 'FILE_TENANT_RESERVED' }),
      );
    }
  });

  it('defaults to the context tenant and refuses another explicit one', () => {
    expect(resolveTenant(undefined, 'acme', true)).toBe('acme');
    expect(resolveTenant('acme', 'acme', true)).toBe('acme');
    expect(() => resolveTenant('globex', 'acme', false)).toThrow(
      expect.objectContaining({ status: 403, code: 'FILE_TENANT_MISMATCH' }),
    );
  });

  it('refuses malformed tenant ids with FILE_TENANT_REQUIRED (reason tenant-id-malformed)', () => {
    for (const bad of ['', 'x'.repeat(129), 'a\nb', 'a\u0000', 5 as unknown as string]) {
      expect(() => resolveTenant(bad, undefined, false)).toThrow(
        expect.objectContaining({
          status: 400,
          code: 'FILE_TENANT_REQUIRED',
          details: { reason: 'tenant-id-malformed' },
        }),
      );
    }
    expect(resolveTenant('x'.repeat(128), undefined, false)).toHaveLength(128);
  });
});

describe('service tenant scope', () => {
  it('forContext reads context.tenant.id and keeps tenants apart', async () => {
    const { service } = setup({ tenancy: true });
    const acme = service.forContext({ tenant: { id: 'acme', role: 'owner' } });
    const globex = service.forContext({ tenant: { id: 'globex', role: 'member' } });
    const file = await acme.upload(buf('hello'), { name: 'a.txt', contentType: 'text/plain' });
    expect(file.tenantId).toBe('acme');
    expect(file.path).toBe(`acme/${file.id}`);
    await expect(globex.get(file.id)).rejects.toMatchObject({ status: 404, code: 'FILE_NOT_FOUND' });
    await expect(globex.get(file.id, 'acme')).rejects.toMatchObject({ code: 'FILE_TENANT_MISMATCH' });
    await expect(service.list()).rejects.toMatchObject({ code: 'FILE_TENANT_REQUIRED' });
    expect((await service.list('acme')).map((f) => f.id)).toEqual([file.id]);
    // A context without a usable tenant is no tenant.
    await expect(service.forContext({ tenant: 'acme' }).list()).rejects.toMatchObject({
      code: 'FILE_TENANT_REQUIRED',
    });
  });

  it('stores files of an app without tenancy under @single', async () => {
    const { service } = setup();
    const file = await service.upload(buf('x'), { name: 'x.txt' });
    expect(file.tenantId).toBe('@single');
    await expect(service.upload(buf('x'), { name: 'x', tenantId: '@single' })).rejects.toMatchObject({
      code: 'FILE_TENANT_RESERVED',
    });
  });
});

describe('tenantSegment', () => {
  it('keeps plain tenant ids readable and encodes the rest into valid, distinct segments', () => {
    expect(tenantSegment('acme-1')).toBe('acme-1');
    expect(tenantSegment('@single')).toBe('@single');
    const tricky = [
      'org:acme',
      'org_acme',
      '=b3JnOmFjbWU',
      '.hidden',
      '..',
      'a/b',
      'ü',
      '=',
      'x'.repeat(255),
      'x'.repeat(256),
      ':'.repeat(128),
      ':'.repeat(127) + ';',
      'é'.repeat(128),
    ];
    const segments = tricky.map(tenantSegment);
    expect(new Set(segments).size).toBe(tricky.length);
    for (const segment of segments) {
      expect(segment.length).toBeLessThanOrEqual(255);
      expect(() => assertStorageKey(`${segment}/id`)).not.toThrow();
    }
    expect(tenantSegment('org:acme')).toBe(`=${Buffer.from('org:acme').toString('base64url')}`);
    // A plain id that looks like an encoding is encoded itself, so it cannot take another tenant's folder.
    expect(tenantSegment('=b3JnOmFjbWU')).not.toBe('=b3JnOmFjbWU');
    expect(storageKey('org:acme', 'f1')).toBe(`${tenantSegment('org:acme')}/f1`);
  });
});
