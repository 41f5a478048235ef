/**
 * Text from elsewhere made safe to show a person (a terminal, a model's host): every control character (C0, DEL, C1) becomes a visible
 * `\xHH`, so ESC and CSI sequences, BEL, OSC (a terminal title, OSC 52 writing the clipboard) and a carriage
 * return that forges a line are shown instead of obeyed; so are the bidi overrides that reorder what a line
 * seems to say. Newlines and tabs stay when `multiline` (results, a lock diff), else they are escaped too (a
 * name, a one-line summary). `--json` output does not go through here: JSON escapes C0 itself, and a script
 * reading it gets the server's bytes.
 */
export function printable(text: string, multiline = true): string {
  return text.replace(multiline ? CONTROL_BUT_LAYOUT : CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above.
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
