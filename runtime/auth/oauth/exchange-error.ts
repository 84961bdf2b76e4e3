// Why a provider's answer was refused, for the log only: the service turns every such error (and any other
// failure of a provider call) into 502 AUTH_OAUTH_EXCHANGE_FAILED with the catalog's neutral message, so a
// client never learns which check failed or what the provider said.

/** A provider's reply did not pass a check, or a call to it failed; `message` is the detail for the log. */
export class OAuthExchangeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OAuthExchangeError';
  }
}
