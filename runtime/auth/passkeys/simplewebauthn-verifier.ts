// svckit's default WebauthnVerifier, on @simplewebauthn/server. The library checks a ceremony's cryptography:
// the client data (type, challenge, origin), the relying party id's hash, the user presence and verification
// flags, the attestation statement and the assertion's signature. Whatever the browser sent is untrusted: a
// response of the wrong shape, or one the library throws on, is a refusal with a short reason, never an
// exception. The signature counter is not judged here but by the passkey service (see verifyAuthentication).
import type * as SimpleWebauthn from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type {
  AuthenticationVerification,
  RegistrationVerification,
  WebauthnExpectations,
  WebauthnVerifier,
} from './verifier.js';

/** Library messages quote what the browser sent (origins, challenges): a reason stays a log line's length. */
const MAX_REASON_LENGTH = 200;

/** The library, loaded by the first ceremony: a service with the auth module but no passkey used pays nothing. */
let library: Promise<typeof SimpleWebauthn> | undefined;
const loadLibrary = () => (library ??= import('@simplewebauthn/server'));

/** The verifier svckit uses when the application passes none. */
export function simpleWebauthnVerifier(): WebauthnVerifier {
  return {
    async verifyRegistration(response, expected): Promise<RegistrationVerification> {
      if (!isRegistrationResponse(response)) return refused('not a registration response');
      if (crossOrigin(response)) return refused('ceremony run in a cross-origin frame');
      try {
        const { verifyRegistrationResponse } = await loadLibrary();
        const result = await verifyRegistrationResponse({ response, ...libraryExpectations(expected) });
        if (!result.verified) return refused('attestation not verified');
        const { credential, userVerified } = result.registrationInfo;
        // The id stored is the one in the authenticator data; the browser's copy must name the same one.
        if (credential.id !== response.id) return refused('credential id differs from authenticator data');
        return {
          verified: true,
          credential: {
            id: credential.id,
            publicKey: Buffer.from(credential.publicKey).toString('base64url'),
            counter: credential.counter,
            transports: transportsOf(response.response),
          },
          userVerified,
        };
      } catch (error) {
        return refusedBy(error);
      }
    },

    async verifyAuthentication(response, expected, credential): Promise<AuthenticationVerification> {
      if (!isAuthenticationResponse(response)) return refused('not an authentication response');
      // The library verifies against whatever credential it is given, without comparing ids.
      if (response.id !== credential.id) return refused('response names another credential');
      if (crossOrigin(response)) return refused('ceremony run in a cross-origin frame');
      try {
        const { verifyAuthenticationResponse } = await loadLibrary();
        const result = await verifyAuthenticationResponse({
          response,
          ...libraryExpectations(expected),
          // The library refuses a counter that did not grow, unless both the stored and the reported counter
          // are 0. The passkey service decides that itself (a cloned authenticator, PASSKEY_CLONED) and moves
          // the stored counter with a compare-and-set, so the library is handed a stored counter of 0: it never
          // refuses on the counter, and its newCounter is the authenticator's raw signCount from the signed
          // authenticator data, for the service to compare with the stored one. (Transports are not passed:
          // the library reads none during verification.)
          credential: {
            id: credential.id,
            publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
            counter: 0,
          },
        });
        if (!result.verified) return refused('signature not verified');
        const { newCounter, userVerified } = result.authenticationInfo;
        return { verified: true, newCounter, userVerified };
      } catch (error) {
        return refusedBy(error);
      }
    },
  };
}

function libraryExpectations(expected: WebauthnExpectations) {
  return {
    expectedChallenge: expected.challenge,
    expectedOrigin: [...expected.origins],
    // A list even of one: given a single empty string, the library's registration skips the RP id check.
    expectedRPID: [expected.rpId],
    requireUserVerification: expected.requireUserVerification,
    // Only the algorithms the options offered: the library's default list has more (RS1 among them).
    supportedAlgorithmIDs: [...expected.algorithms],
  };
}

/**
 * Whether the browser ran the ceremony in a frame of another origin (client data `crossOrigin: true`): the
 * pages of `origins` run their own ceremonies, a frame another site embeds them in does not.
 */
function crossOrigin(response: { response: { clientDataJSON: string } }): boolean {
  try {
    const data: unknown = JSON.parse(
      Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8'),
    );
    return isObject(data) && data.crossOrigin === true;
  } catch {
    return false; // Not JSON: the library refuses it.
  }
}

function refused(reason: string): { verified: false; reason: string } {
  return { verified: false, reason };
}

function refusedBy(error: unknown): { verified: false; reason: string } {
  const message = error instanceof Error && error.message !== '' ? error.message : 'response not verified';
  return refused(message.slice(0, MAX_REASON_LENGTH));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The outer shape every credential response has: string ids and a `response` object. */
function credentialParts(value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.rawId !== 'string') return undefined;
  if (value.type !== 'public-key' || !isObject(value.response)) return undefined;
  return typeof value.response.clientDataJSON === 'string' ? value.response : undefined;
}

function isRegistrationResponse(value: unknown): value is RegistrationResponseJSON {
  return typeof credentialParts(value)?.attestationObject === 'string';
}

function isAuthenticationResponse(value: unknown): value is AuthenticationResponseJSON {
  const parts = credentialParts(value);
  return (
    parts !== undefined &&
    typeof parts.authenticatorData === 'string' &&
    typeof parts.signature === 'string' &&
    (parts.userHandle === undefined || parts.userHandle === null || typeof parts.userHandle === 'string')
  );
}

/** The transports the browser reported, when it reported a list of strings; otherwise none. */
function transportsOf(attestation: RegistrationResponseJSON['response']): string[] {
  const transports: unknown = attestation.transports;
  if (!Array.isArray(transports)) return [];
  const entries: unknown[] = transports;
  return entries.every((entry): entry is string => typeof entry === 'string') ? [...entries] : [];
}
