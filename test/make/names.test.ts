// The spellings of a resource name, and the names nothing can be derived from.
import { describe, expect, test } from 'vitest';
import { names, pluralize } from '../../make/index.js';

describe('names()', () => {
  test.each(['BlogPost', 'blog-post', 'blog post', 'blog_post', 'BLOG_POST', '  Blog   Post '])(
    '%j spells the same words',
    (input) => {
      expect(names(input)).toEqual({
        raw: input,
        pascal: 'BlogPost',
        camel: 'blogPost',
        kebab: 'blog-post',
        pluralKebab: 'blog-posts',
        constant: 'BLOG_POST',
      });
    },
  );

  test('capitals start words, runs of capitals are one word', () => {
    expect(names('HTTPRequest').kebab).toBe('http-request');
    expect(names('userID').constant).toBe('USER_ID');
    expect(names('post2Draft').kebab).toBe('post2-draft');
  });

  test('only the last word is made plural', () => {
    expect(names('category').pluralKebab).toBe('categories');
    expect(names('tax box').pluralKebab).toBe('tax-boxes');
    expect(names('BlogEntry').pluralKebab).toBe('blog-entries');
  });

  test('the plural is the simplified English rule, exactly', () => {
    expect(pluralize('story')).toBe('stories');
    expect(pluralize('box')).toBe('boxes');
    expect(pluralize('post')).toBe('posts');
    // The rule knows no exceptions: the spec's path can be renamed by hand.
    expect(pluralize('day')).toBe('daies');
    expect(pluralize('person')).toBe('persons');
  });

  test.each(['', '   ', '---', '_ _'])('%j has no words and throws', (input) => {
    expect(() => names(input)).toThrow(/no words/);
  });

  test.each(['café', 'blog/post', 'post.ts', 'a;b'])(
    '%j holds characters no spelling carries and throws',
    (input) => {
      expect(() => names(input)).toThrow(/Cannot derive a name/);
    },
  );

  test.each(['2fa', '-post', '_post', '- post'])('%j does not start with a letter and throws', (input) => {
    expect(() => names(input)).toThrow(/start with a letter/);
  });
});
