// A sentence ends at . ! ? or …, perhaps inside closing quotes or brackets.
const SENTENCE_END = /[.!?…]["'”’)\]]*$/u;
const SENTENCE_BREAK = /[.!?…]["'”’)\]]*(?=\s)/gu;
// Below this share of the text, a whole first sentence says too little: cut with an ellipsis.
const MIN_SHARE = 1 / 3;

/**
 * The list page's excerpt of an article's description: whole sentences, or text that ends with
 * an ellipsis. Folio cuts a description it derives at a word boundary, which can stop
 * mid-sentence ("…at the top of the").
 * @example
 * excerpt('One. Two is cut'); // 'One. Two is cut…'
 * excerpt('A first sentence, long enough. Then a cut'); // 'A first sentence, long enough.'
 */
export function excerpt(description: string): string {
  const text = description.trim();
  if (text === '' || SENTENCE_END.test(text)) return text;
  const breaks = [...text.matchAll(SENTENCE_BREAK)];
  const last = breaks.at(-1);
  if (last && last.index + last[0].length >= text.length * MIN_SHARE) {
    return text.slice(0, last.index + last[0].length);
  }
  // Trailing punctuation before an ellipsis reads as a typo: "tag managers,…".
  return `${text.replace(/[\s,;:–—-]+$/u, '')}…`;
}
