// Under modules.auth.requireMfa, every route the policy covers documents the policy's two refusals; routes that
// opt out (`mfa: false`), and services without the policy, do not.
import { describe, expect, it } from 'vitest';
import { impliedErrorCodes, routeErrorFacts } from '../../shared/openapi/error-codes.js';

const codes = (meta: Record<string, unknown>, requireMfa: boolean) =>
  impliedErrorCodes(routeErrorFacts({ method: 'GET', meta }, { auth: { requireMfa } }));

describe('implied codes of the MFA policy', () => {
  it('covers every route but mfa: false ones, only with the policy on', () => {
    for (const meta of [{}, { auth: true }]) {
      expect(codes(meta, true)).toEqual(
        expect.arrayContaining(['AUTH_MFA_REQUIRED', 'AUTH_MFA_ENROLLMENT_REQUIRED']),
      );
      expect(codes(meta, false)).not.toContain('AUTH_MFA_ENROLLMENT_REQUIRED');
    }
    expect(codes({ auth: true, mfa: false }, true)).not.toContain('AUTH_MFA_ENROLLMENT_REQUIRED');
    expect(codes({ auth: true, mfa: false }, true)).not.toContain('AUTH_MFA_REQUIRED');
    // Step-up alone says a second factor is missing, never that one must be enrolled.
    expect(codes({ auth: true, mfa: true }, false)).toContain('AUTH_MFA_REQUIRED');
    expect(codes({ auth: true, mfa: true }, false)).not.toContain('AUTH_MFA_ENROLLMENT_REQUIRED');
  });
});
