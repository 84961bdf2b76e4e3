// The sender a mail carries: an address or `Name <address>`. Checked when the module starts, so a mistyped
// `from` refuses to boot instead of every mail bouncing later.

const ADDRESS = String.raw`[^\s<>@",;]+@[^\s<>@",;]+`;
const MAILBOX = new RegExp(`^(?:${ADDRESS}|[^<>\r\n]*<${ADDRESS}>)$`);

/** Whether `value` is an address (`a@example.com`) or a named one (`Notes <a@example.com>`). */
export function isMailbox(value: string): boolean {
  return MAILBOX.test(value.trim());
}

/** `"<service name>" <no-reply@localhost>`: names the service, delivers nowhere; production sets `from`. */
export function defaultFrom(serviceName: string): string {
  const name = serviceName.replace(/[\r\n]+/g, ' ').replace(/["\\]/g, (char) => `\\${char}`);
  return `"${name}" <no-reply@localhost>`;
}
