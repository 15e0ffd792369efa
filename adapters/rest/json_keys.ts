/**
 * True when some object in a JSON text names a key twice. JSON.parse keeps the last one silently,
 * while another parser (a proxy, the client's) may keep the first; I-JSON (RFC 7493) forbids them.
 * Call on text JSON.parse has accepted: it assumes well-formed input.
 */
export const hasDuplicateKeys = (text: string): boolean => {
  // One entry per open container: the keys seen in an object, or null for an array.
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        const raw = text.slice(start, i + 1);
        const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (top.has(key)) return true;
        top.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
  }
  return false;
};
