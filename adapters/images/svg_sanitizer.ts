import sanitizeHtml from "sanitize-html";
import {
  SVG_ATTRIBUTES,
  SVG_DROPPED_WHOLE,
  SVG_ELEMENTS,
  SVG_NAMESPACE,
  styleSheetKept,
  svgAttributeKept,
} from "../../core/organizations/mod.ts";

/** Why an SVG could not be rebuilt. */
export class SvgRefused extends Error {}

const kept = new Set(SVG_ATTRIBUTES);

/**
 * The SVG rebuilt from core's allow-list by sanitize-html over htmlparser2 in XML mode: only the
 * listed elements and attributes, attribute values that load nothing, stylesheets that load
 * nothing; no comment, processing instruction, DOCTYPE or CDATA marker survives, and entities are
 * never expanded (the parser knows XML's five and character references, nothing declared). The
 * root is an `<svg>` in the SVG namespace. Throws {@link SvgRefused} when the document is not one
 * `<svg>` element. Rebuilding a rebuilt document gives it back unchanged.
 */
export const sanitizedSvg = (text: string): string => {
  let depth = 0;
  let roots = 0;
  let rootName = "";
  const rebuilt = sanitizeHtml(text, {
    parser: { xmlMode: true },
    allowedTags: [...SVG_ELEMENTS],
    allowedAttributes: { "*": [...SVG_ATTRIBUTES] },
    // Text outside any kept element (before the root, after it, in a dropped element) goes.
    disallowedTagsMode: "completelyDiscard",
    nonTextTags: [...SVG_DROPPED_WHOLE],
    // `style` is on the list on purpose: its text is judged by styleSheetKept below.
    allowVulnerableTags: true,
    // Values are judged by core's rules (svgAttributeKept) rather than reparsed as CSS.
    parseStyleAttributes: false,
    allowedSchemesAppliedToAttributes: [],
    nonBooleanAttributes: [],
    selfClosing: [],
    onOpenTag: (name) => {
      if (depth === 0) {
        roots++;
        rootName = name;
      }
      depth++;
    },
    onCloseTag: () => {
      depth--;
    },
    transformTags: {
      "*": (tagName, attribs) => {
        const attributes: Record<string, string> = {};
        for (const [name, value] of Object.entries(attribs)) {
          if (kept.has(name) && svgAttributeKept(name, value)) attributes[name] = value;
        }
        // The root names the SVG namespace, so the file renders as SVG wherever it is opened.
        if (depth === 1 && tagName === "svg") attributes.xmlns = SVG_NAMESPACE;
        return { tagName, attribs: attributes };
      },
    },
    exclusiveFilter: (frame) => frame.tag === "style" && !styleSheetKept(frame.text),
  });
  if (roots !== 1 || rootName !== "svg") throw new SvgRefused("is not a single <svg> document");
  // An element with nothing inside is written `<x/>`, as SVG editors write it.
  return rebuilt.trim().replace(/<([A-Za-z][\w:-]*)([^<>]*)><\/\1>/g, "<$1$2/>");
};
