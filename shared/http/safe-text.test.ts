import { describe, expect, it } from 'vitest';
import { findUnsafeText, jsonMayHoldUnsafeText, unsafeText } from './safe-text.ts';

const NUL = 'a\u0000b';
const LONE = 'x\ud800y';

describe('text no store accepts', () => {
  it('is a NUL or a lone surrogate; paired surrogates and other control characters are fine', () => {
    expect(unsafeText(NUL)).toMatch(/NUL/);
    expect(unsafeText(LONE)).toMatch(/lone UTF-16 surrogate/);
    expect(unsafeText('\udc00')).toMatch(/lone/);
    expect(unsafeText('😀 \u0001 \t é')).toBeUndefined();
  });

  it('is looked for in a JSON text only where an escape could produce it', () => {
    expect(jsonMayHoldUnsafeText('{"a":"\\u0000"}')).toBe(true);
    expect(jsonMayHoldUnsafeText('{"a":"\\uD83D"}')).toBe(true);
    expect(jsonMayHoldUnsafeText('{"a":"\\u00e9 \\\\u0000"}')).toBe(true); // may: the walk decides
    expect(jsonMayHoldUnsafeText('{"a":"\\u00e9"}')).toBe(false);
  });

  it('is found anywhere in a value, the field named as the API spells it', () => {
    expect(findUnsafeText(NUL)).toEqual({ path: '', message: 'the value contains a NUL character (U+0000)' });
    expect(findUnsafeText(NUL, 'user_id')).toEqual({ path: 'user_id', message: '`user_id` contains a NUL character (U+0000)' });
    expect(findUnsafeText({ action_type: 'ok', metadata: { note: LONE } })).toEqual({ path: 'metadata.note', message: '`metadata.note` contains a lone UTF-16 surrogate (not valid Unicode)' });
    expect(findUnsafeText({ metadata: { tags: ['a', 'b', { deep: [1, NUL] }] } })).toMatchObject({ path: 'metadata.tags[2].deep[1]' });
    expect(findUnsafeText([{ a: 1 }, { b: [NUL] }])).toMatchObject({ path: '[1].b[0]' });
    expect(findUnsafeText({ events: [{ x: 'ok' }, { y: NUL }] }, 'body')).toMatchObject({ path: 'body.events[1].y' });
    expect(findUnsafeText({ metadata: { [`k${NUL}`]: 1 } })).toEqual({ path: `metadata.k${NUL}`, message: `the key \`metadata.k${NUL}\` contains a NUL character (U+0000)` });
  });

  it('passes clean values of every kind, and names the first bad field in document order', () => {
    expect(findUnsafeText({ a: 1, b: true, c: null, d: [1.5, 'x', { e: '😀' }], f: {} , g: [] })).toBeUndefined();
    expect(findUnsafeText(42)).toBeUndefined();
    expect(findUnsafeText(null)).toBeUndefined();
    expect(findUnsafeText({ a: { b: NUL }, c: LONE })).toMatchObject({ path: 'a.b' });
    expect(findUnsafeText([LONE, NUL])).toMatchObject({ path: '[0]' });
  });

  it('walks values nested deeper than the call stack', () => {
    let deep: unknown = NUL;
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { n: deep };
    const found = findUnsafeText(deep);
    expect(found?.message).toMatch(/NUL/);
    expect(found?.path.length).toBeGreaterThan(200_000);
  });
});
