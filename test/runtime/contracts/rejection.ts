// The HttpError an action rejects with; fails the test when it resolves or rejects with something else.
import { expect } from 'vitest';
import { HttpError } from 'svckit';

export async function rejectionOf(action: Promise<unknown>): Promise<HttpError> {
  const outcome = await action.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(outcome, 'expected a rejection').toBeInstanceOf(HttpError);
  return outcome as HttpError;
}
