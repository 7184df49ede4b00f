/**
 * Text an agent or a terminal writes and the owner reads (names in the dashboard, the tray and
 * notifications; descriptions and prompts in the history): it must show what it is. Pure: the
 * wire's schemas (schemas.ts) refuse what fails it, at every door.
 *
 * Everywhere refused: control characters (NUL cuts a name short, an escape sequence recolours a
 * terminal; multi-line text keeps its line breaks and tabs), bidirectional controls (U+202E turns
 * "gpj.exe" around), unpaired surrogates (no character at all), and tag characters but an emoji
 * flag's (ASCII written in them is invisible to the owner and read by any model the text reaches:
 * hidden instructions, helper 178).
 *
 * In a name also: every other invisible character (default-ignorable, and the interlinear
 * annotation marks), as two names that look alike would otherwise be two ("al\u200Cpha"), but where
 * writing puts them: a joiner or non-joiner in a joining script (Arabic, Syriac, N'Ko, Mongolian,
 * the Indic scripts) or the joiner between emoji (👩‍👩‍👧), one variation selector after what takes
 * one (an emoji ❤️, an ideograph, Mongolian), the Mongolian vowel separator between Mongolian
 * letters; and a name that shows nothing (spaces, invisible characters, combining marks alone,
 * private-use characters, the Braille blank).
 */

/** A black flag, its region's tags (2 to 6 letters or digits), the cancel tag: 🏴󠁧󠁢󠁳󠁣󠁴󠁿. */
const EMOJI_FLAG = /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{2,6}\u{E007F}/gu;
const TAG = /[\u{E0000}-\u{E007F}]/u;

const JOINING_SCRIPT =
  '\\p{Script=Arabic}\\p{Script=Syriac}\\p{Script=Nko}\\p{Script=Mongolian}\\p{Script=Devanagari}\\p{Script=Bengali}' +
  '\\p{Script=Gurmukhi}\\p{Script=Gujarati}\\p{Script=Oriya}\\p{Script=Tamil}\\p{Script=Telugu}\\p{Script=Kannada}' +
  '\\p{Script=Malayalam}\\p{Script=Sinhala}';
/** The invisible characters writing puts somewhere, each where it goes (taken out before the rest is judged). */
const WRITINGS_OWN: readonly RegExp[] = [
  new RegExp(`(?<=[${JOINING_SCRIPT}])[\\u200C\\u200D](?=[${JOINING_SCRIPT}])`, 'gu'),
  /(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F])\u200D(?=\p{Extended_Pictographic})/gu,
  /(?<=[\p{Extended_Pictographic}\p{Emoji}\p{Ideographic}\p{Script=Mongolian}])\p{Variation_Selector}/gu,
  /(?<=\p{Script=Mongolian})\u180E(?=\p{Script=Mongolian})/gu,
];
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\uFFF9-\uFFFB]/u;
/** Something a reader sees: not a space, an invisible character, a mark alone, private use or the Braille blank. */
const SHOWS_SOMETHING = /[^\s\p{Default_Ignorable_Code_Point}\p{M}\p{Co}\u2800]/u;

const CONTROL_IN_A_LINE = /[\p{Cc}\p{Zl}\p{Zp}\p{Bidi_Control}]/u;
const CONTROL_IN_TEXT = /[\p{Bidi_Control}\p{Zl}\p{Zp}]|[^\P{Cc}\t\n\r]/u;
/** A high surrogate without its low half, or a low one without its high half (not `u` mode on purpose). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const LYING_MESSAGE = 'must not contain control characters, bidirectional controls, invisible characters or unpaired surrogates';

const hidesText = (text: string): boolean => TAG.test(text.replace(EMOJI_FLAG, '\u{1F3F4}'));

/** A single-line name (an agent's, a service's, a terminal's) shows what it is. */
export function isHonestName(text: string): boolean {
  if (UNPAIRED_SURROGATE.test(text) || CONTROL_IN_A_LINE.test(text)) return false;
  // A tag outside a flag is default-ignorable, refused with every other invisible character here.
  const seen = WRITINGS_OWN.reduce((rest, own) => rest.replace(own, ''), text.replace(EMOJI_FLAG, '\u{1F3F4}'));
  return !INVISIBLE.test(seen) && (text === '' || SHOWS_SOMETHING.test(text));
}

/** Multi-line text (a description, a prompt) hides nothing; what pasted writing carries, it keeps. */
export const isHonestText = (text: string): boolean => !UNPAIRED_SURROGATE.test(text) && !CONTROL_IN_TEXT.test(text) && !hidesText(text);
