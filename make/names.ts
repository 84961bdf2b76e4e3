// The spellings of one resource name. `BlogPost`, `blog-post`, `blog_post` and `blog post` are the same two
// words, so every command derives its classes, variables, files, paths and codes from the same source.

/** Every spelling `svc make:*` uses for a name. */
export interface Names {
  /** The input as given. */
  raw: string;
  /** Classes and types: `BlogPost`. */
  pascal: string;
  /** Variables and functions: `blogPost`. */
  camel: string;
  /** Files and folders: `blog-post`. */
  kebab: string;
  /** Route paths: `blog-posts` (English simplified: a final y becomes ies, x becomes xes, else s). */
  pluralKebab: string;
  /** Error codes and tokens: `BLOG_POST`. */
  constant: string;
}

/** Letters and digits in words separated by spaces, dashes or underscores, or by a change of case. */
const ALLOWED = /^[A-Za-z0-9 _-]*$/;

/** The lower-case words of a name: `HTTPRequest` → http, request; `blog-post` → blog, post. */
export function wordsOf(input: string): string[] {
  if (!ALLOWED.test(input)) {
    throw new Error(
      `Cannot derive a name from '${input}': use ASCII letters and digits, in words separated by spaces, dashes or underscores, or by capitals (BlogPost, blog-post).`,
    );
  }
  const words = input
    .split(/[ _-]+/)
    .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .filter((word) => word.length > 0)
    .map((word) => word.toLowerCase());
  if (words.length === 0) throw new Error(`Cannot derive a name from '${input}': it has no words.`);
  // A leading digit, dash or underscore would vanish from some spellings and not others.
  if (!/^[A-Za-z]/.test(input.trim())) {
    throw new Error(`Cannot derive a name from '${input}': it must start with a letter.`);
  }
  return words;
}

/** The simplified English plural of one word: a final y becomes ies, a final x becomes xes, else s. */
export function pluralize(word: string): string {
  if (word.endsWith('y')) return `${word.slice(0, -1)}ies`;
  if (word.endsWith('x')) return `${word}es`;
  return `${word}s`;
}

/** `blog` → `Blog`. */
export const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** Every spelling of `input`; throws when it holds no words (or characters no spelling can carry). */
export function names(input: string): Names {
  const words = wordsOf(input);
  const plural = [...words.slice(0, -1), pluralize(words.at(-1)!)];
  return {
    raw: input,
    pascal: words.map(capitalize).join(''),
    camel: words[0]! + words.slice(1).map(capitalize).join(''),
    kebab: words.join('-'),
    pluralKebab: plural.join('-'),
    constant: words.join('_').toUpperCase(),
  };
}
