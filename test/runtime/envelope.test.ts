// toErrorResponse: the error envelope, and which errors keep their status and message (docs/http.md,
// "Which status and message go out").
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  SvcError,
  BootError,
  RequestValidationError,
  redactSensitiveDetails,
  toErrorResponse,
} from 'svckit';
import { errors } from '../../generated/modules/errors.js';

const NEUTRAL = 'Internal server error.';

describe('toErrorResponse: deliberate errors', () => {
  it('answers an HttpError with its status, code and message', () => {
    expect(toErrorResponse(new HttpError(404, 'NOTE_NOT_FOUND', 'Note not found.'))).toEqual({
      status: 404,
      body: { error: { code: 'NOTE_NOT_FOUND', message: 'Note not found.' } },
    });
  });

  it('answers a generated catalog error', () => {
    expect(toErrorResponse(errors.RATE_LIMITED())).toEqual({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } },
    });
  });

  it('sends details only when the error was built with them', () => {
    const withDetails = toErrorResponse(
      new HttpError(409, 'TAKEN', 'Taken.', { details: { field: 'email' } }),
    );
    expect(withDetails.body.error.details).toEqual({ field: 'email' });
    expect(toErrorResponse(new HttpError(409, 'TAKEN', 'Taken.')).body.error).not.toHaveProperty('details');
  });

  it('never serialises internalDetails', () => {
    const response = toErrorResponse(
      new HttpError(400, 'X', 'x', { internalDetails: { sql: 'SELECT secret' }, details: { ok: 1 } }),
    );
    expect(JSON.stringify(response)).not.toContain('SELECT secret');
    expect(response.body.error.details).toEqual({ ok: 1 });
  });

  it('drops details over the size limit but keeps code and message', () => {
    const response = toErrorResponse(new HttpError(400, 'BIG', 'Big.', { details: { s: 'x'.repeat(5000) } }));
    expect(response.body.error).toEqual({ code: 'BIG', message: 'Big.' });
  });

  it('answers validation errors with part and issues and never details', () => {
    const error = new RequestValidationError('query', [{ path: 'limit', message: 'must be integer' }]);
    expect(toErrorResponse(error)).toEqual({
      status: 400,
      body: {
        error: {
          code: 'HTTP_VALIDATION',
          message: 'Request validation failed.',
          part: 'query',
          issues: [{ path: 'limit', message: 'must be integer' }],
        },
      },
    });
  });
});

describe('toErrorResponse: five-hundred handling', () => {
  it('answers an unexpected error with 500 INTERNAL_ERROR and a neutral message', () => {
    const response = toErrorResponse(new Error('connect ECONNREFUSED db.internal:5432'));
    expect(response).toEqual({ status: 500, body: { error: { code: 'INTERNAL_ERROR', message: NEUTRAL } } });
  });

  it('treats thrown non-errors as unexpected', () => {
    for (const thrown of ['text', 42, null, undefined, { message: 'm' }]) {
      expect(toErrorResponse(thrown).body.error.code).toBe('INTERNAL_ERROR');
    }
  });

  it('keeps the code of a toolkit error at 500 but hides its message', () => {
    const response = toErrorResponse(new HttpError(500, 'DB_DOWN', 'Primary db-3 unreachable'));
    expect(response).toEqual({ status: 500, body: { error: { code: 'DB_DOWN', message: NEUTRAL } } });
  });

  it('keeps the details of a deliberate 5xx', () => {
    const response = toErrorResponse(new HttpError(500, 'DB_DOWN', 'x', { details: { retryable: true } }));
    expect(response.body.error.details).toEqual({ retryable: true });
  });

  it('shows the message of a 500 toolkit error with expose = true', () => {
    const response = toErrorResponse(new HttpError(500, 'MAINTENANCE', 'Back at noon.', { expose: true }));
    expect(response.body.error.message).toBe('Back at noon.');
  });

  it('answers only the code and a neutral message when expose = false, at any status', () => {
    const response = toErrorResponse(
      new HttpError(404, 'USER_NOT_FOUND', 'No user bob@example.com', {
        expose: false,
        details: { email: 'bob' },
      }),
    );
    expect(response).toEqual({
      status: 404,
      body: { error: { code: 'USER_NOT_FOUND', message: 'Not found.' } },
    });
  });

  it.each([501, 502, 503])('passes a deliberate %i through with its message', (status) => {
    const response = toErrorResponse(new HttpError(status, 'UPSTREAM', 'Try later.'));
    expect(response).toEqual({ status, body: { error: { code: 'UPSTREAM', message: 'Try later.' } } });
  });

  it('keeps an external error that merely carries status or statusCode at 500', () => {
    const withStatus = Object.assign(new Error('Forbidden by upstream'), { status: 403, code: 'EUPSTREAM' });
    const withStatusCode = Object.assign(new Error('Nope'), { statusCode: 404 });
    for (const error of [withStatus, withStatusCode]) {
      expect(toErrorResponse(error)).toEqual({
        status: 500,
        body: { error: { code: 'INTERNAL_ERROR', message: NEUTRAL } },
      });
    }
  });

  it('keeps the status of an external error with expose: true, without details', () => {
    const error = Object.assign(new Error('Unknown widget.'), {
      status: 404,
      expose: true,
      details: { a: 1 },
    });
    expect(toErrorResponse(error)).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'Unknown widget.' } },
    });
    const coded = Object.assign(new Error('Slow down.'), {
      statusCode: 429,
      expose: true,
      code: 'SLOW_DOWN',
    });
    expect(toErrorResponse(coded).body.error.code).toBe('SLOW_DOWN');
  });

  it('answers 500 for a toolkit error without an error status (boot errors, 3xx)', () => {
    expect(toErrorResponse(new BootError('CONFIG_INVALID', 'port is bad')).status).toBe(500);
    expect(toErrorResponse(new SvcError(302, 'ODD', 'odd')).status).toBe(500);
    expect(toErrorResponse(new SvcError(302, 'ODD', 'odd')).body.error.message).toBe(NEUTRAL);
  });

  it('survives hostile error objects', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(toErrorResponse(hostile).status).toBe(500);
  });
});

describe('toErrorResponse: redactor', () => {
  const error = new HttpError(400, 'BAD', 'Bad.', { details: { token: 'abc', field: 'x' } });

  it('applies no redaction by default', () => {
    expect(toErrorResponse(error).body.error.details).toEqual({ token: 'abc', field: 'x' });
  });

  it('applies redactSensitiveDetails when given', () => {
    expect(toErrorResponse(error, { redactDetails: redactSensitiveDetails }).body.error.details).toEqual({
      token: '[REDACTED]',
      field: 'x',
    });
  });

  it('sends no details when the redactor throws', () => {
    const response = toErrorResponse(error, {
      redactDetails: () => {
        throw new Error('redactor broke');
      },
    });
    expect(response.body.error).toEqual({ code: 'BAD', message: 'Bad.' });
  });

  it('sanitises what the redactor returns', () => {
    const response = toErrorResponse(error, { redactDetails: () => ({ at: new Date(0), fn: () => 1 }) });
    expect(response.body.error.details).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });
});
