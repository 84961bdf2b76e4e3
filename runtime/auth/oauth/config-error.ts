// The boot refusal of social sign-in's configuration: a provider or a set of providers the service cannot run
// safely with refuses to start (AUTH_OAUTH_PROVIDER_CONFIG), naming the provider and the problem.
import { errors } from '../../../generated/modules/errors.js';

export function providerConfigError(owner: string, problem: string): Error {
  return errors.AUTH_OAUTH_PROVIDER_CONFIG({ message: `${owner}: ${problem}` });
}
