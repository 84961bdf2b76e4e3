// How an error appears in a log line's fields: name, message, its `code` when it has one, and the stack.

export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      message: error.message,
      ...(code === undefined ? {} : { code }),
      stack: error.stack,
    };
  }
  return { value: String(error) };
}
