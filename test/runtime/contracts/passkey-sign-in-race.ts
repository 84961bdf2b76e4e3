// One assertion presented many times at once, through two passkey services sharing their stores (two
// processes on one database or Redis): the challenge is taken once, so exactly one sign-in succeeds, whatever
// the backend. Registration goes through the first service; the sign-ins alternate between the two.
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../runtime/http/errors.js';
import { PasskeyService } from '../../../runtime/auth/passkeys/service.js';
import { simpleWebauthnVerifier } from '../../../runtime/auth/passkeys/simplewebauthn-verifier.js';
import type { ChallengeStore, PasskeyStore } from '../../../runtime/auth/passkeys/store.js';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.js';

const ORIGIN = 'http://localhost:3000';
const RACERS = 20;

/** The stores of one service instance. */
export interface PasskeyBackend {
  credentials: PasskeyStore;
  challenges: ChallengeStore;
}

function serviceOn(backend: PasskeyBackend): PasskeyService {
  return new PasskeyService({
    config: { rpId: 'localhost', rpName: 'Notes', origin: ORIGIN },
    verifier: simpleWebauthnVerifier(),
    ...backend,
  });
}

export function sameAssertionRace(
  name: string,
  makeBackends: () => Promise<readonly [PasskeyBackend, PasskeyBackend]>,
): void {
  describe(name, () => {
    it(`lets exactly one of ${RACERS} concurrent sign-ins with the same assertion through`, async () => {
      const [first, second] = (await makeBackends()).map(serviceOn) as [PasskeyService, PasskeyService];
      const device = new SoftwareAuthenticator({ origin: ORIGIN });
      const userId = `racer-${Math.random().toString(36).slice(2)}`;
      const sessionKey = `race-${userId}`;
      const start = await first.startRegistration(sessionKey, { id: userId, name: `${userId}@example.com` });
      await first.finishRegistration(sessionKey, userId, device.register(start));

      const assertion = device.authenticate(await first.startAuthentication(sessionKey));
      const outcomes = await Promise.all(
        Array.from({ length: RACERS }, (_, index) =>
          (index % 2 === 0 ? first : second).finishAuthentication(sessionKey, assertion).then(
            (signIn) => signIn.userId,
            (error: unknown) => (error instanceof HttpError ? error.code : String(error)),
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome === userId)).toHaveLength(1);
      expect(new Set(outcomes.filter((outcome) => outcome !== userId))).toEqual(
        new Set(['WEBAUTHN_CHALLENGE_INVALID']),
      );
    });
  });
}
