/**
 * Several kinds of invalid block, in turn: wrong type, missing field, bad enum, bad link,
 * unknown field, nested problems, unknown type. Tests of hostile bodies build them from these.
 */
export const INVALID_BLOCKS: ReadonlyArray<(i: number) => unknown> = [
  (i) => ({ type: 'heading', level: '2', text: `h${i}` }),
  (i) => ({ type: 'paragraph', id: `p${i}` }),
  () => ({ type: 'callout', variant: 'loud', content: [{ text: 'x' }] }),
  (i) => ({ type: 'paragraph', content: [{ text: 'x', href: `javascript:alert(${i})` }] }),
  (i) => ({ type: 'code', code: 'x', colour: i }),
  () => ({ type: 'list', ordered: true, items: [[{ text: 'a', bold: 'yes' }], [{ txt: 'b' }]] }),
  (i) => ({ type: 'nope', n: i }),
];
