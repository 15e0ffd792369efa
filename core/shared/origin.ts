/** The origin (`scheme://host[:port]`, lowercased) of an http(s) address; null for anything else. */
export const originOf = (url: string | null): string | null => {
  const m = url ? /^(https?:\/\/[^/?#]+)/i.exec(url) : null;
  return m ? (m[1] as string).toLowerCase() : null;
};
