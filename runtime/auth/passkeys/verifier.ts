// The verifier contract: the cryptography of a WebAuthn ceremony, and nothing else. The passkey service runs
// the ceremony (challenges, subjects, the credential store, the counter's compare-and-set) and hands the
// browser's response to a verifier with what it must match. svckit ships one on @simplewebauthn/server
// (simplewebauthn-verifier.ts); an application may pass its own.

/** What every check is made against. */
export interface WebauthnExpectations {
  /** The challenge the service issued, base64url. */
  challenge: string;
  /** The origins the browser may report (`https://app.example.com`, `http://localhost:3000`). */
  origins: readonly string[];
  /** The relying party id: the site's registrable domain, or `localhost`. */
  rpId: string;
  /** Whether the authenticator must have verified the user (PIN, biometrics). */
  requireUserVerification: boolean;
  /** The COSE algorithms the options offered (ES256 -7, RS256 -257): a credential of another is refused. */
  algorithms: readonly number[];
}

/** The credential a new registration created. */
export interface RegisteredCredential {
  /** base64url. */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** A whole number, 0 or more. */
  counter: number;
  transports: string[];
}

export type RegistrationVerification =
  | { verified: true; credential: RegisteredCredential; userVerified: boolean }
  | { verified: false; reason?: string };

export type AuthenticationVerification =
  | {
      verified: true;
      /** The counter the authenticator reported; a whole number, 0 or more. */
      newCounter: number;
      userVerified: boolean;
    }
  | { verified: false; reason?: string };

export interface WebauthnVerifier {
  /** Checks an attestation (`navigator.credentials.create()`'s response, as JSON). */
  verifyRegistration(response: unknown, expected: WebauthnExpectations): Promise<RegistrationVerification>;
  /**
   * Checks an assertion (`navigator.credentials.get()`'s response, as JSON) against the stored credential it
   * names.
   */
  verifyAuthentication(
    response: unknown,
    expected: WebauthnExpectations,
    credential: { id: string; publicKey: string; counter: number; transports: readonly string[] },
  ): Promise<AuthenticationVerification>;
}
