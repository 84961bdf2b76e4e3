// `modules.mail` in svc.config.yaml as `svc build` reads it: the options docs/mail.md lists load (references
// to SMTP_URL left to the start), and a misspelt option or a URL that is not SMTP is an error at build time.
import { describe, expect, it } from 'vitest';
import { HEAD, load, problemsOf } from '../spec/helpers.js';

const spec = (mail: string) => `${HEAD}routes: {}\nmodules:\n  auth: true\n  mail:\n${mail}`;

describe('modules.mail in the spec', () => {
  it('loads every documented option, `${SMTP_URL:-}` included', async () => {
    const ir = await load(
      spec(
        [
          '    transport: smtp',
          "    url: '${SMTP_URL:-}'",
          "    from: 'Notes <no-reply@example.com>'",
          '    templates: templates/mail',
          "    linkBaseUrl: 'https://app.example.com'",
          '    connectionTimeout: 5s',
          '    greetingTimeout: 5000',
          '    socketTimeout: 1m',
          '',
        ].join('\n'),
      ),
    );
    expect(ir.config.modules).toMatchObject({
      mail: {
        transport: 'smtp',
        from: 'Notes <no-reply@example.com>',
        connectionTimeout: '5s',
        greetingTimeout: 5000,
        socketTimeout: '1m',
      },
    });
    await expect(load(`${HEAD}routes: {}\nmodules:\n  mail: true\n`)).resolves.toBeDefined();
  });

  it('refuses an unknown option and a URL that is not smtp:// or smtps://', async () => {
    const unknown = await problemsOf(spec('    tranport: log\n'));
    expect(unknown.problems).toMatchObject([
      { message: "unknown key 'tranport' in modules.mail", hint: "did you mean 'transport'?" },
    ]);
    const http = await problemsOf(spec("    url: 'http://mail.example.com'\n"));
    expect(http.problems).toMatchObject([{ hint: expect.stringContaining('smtp:// or smtps://') }]);
  });
});
