/**
 * What a stored SVG may hold. An uploaded SVG is rebuilt from these lists (by the image adapter's
 * parser): any other element, attribute or processing instruction is left out. They describe a
 * still picture: shapes, text, paint servers, clipping, masking and filters. Nothing runs
 * (no script, no event handlers, no animation, which can set a link's target after any check),
 * nothing embeds another document, and nothing is loaded from outside the file.
 */

export const SVG_NAMESPACE = "http://www.w3.org/2000/svg";
export const XLINK_NAMESPACE = "http://www.w3.org/1999/xlink";

const FILTER_PRIMITIVES = [
  "feBlend",
  "feColorMatrix",
  "feComponentTransfer",
  "feComposite",
  "feConvolveMatrix",
  "feDiffuseLighting",
  "feDisplacementMap",
  "feDistantLight",
  "feDropShadow",
  "feFlood",
  "feFuncA",
  "feFuncB",
  "feFuncG",
  "feFuncR",
  "feGaussianBlur",
  "feMerge",
  "feMergeNode",
  "feMorphology",
  "feOffset",
  "fePointLight",
  "feSpecularLighting",
  "feSpotLight",
  "feTile",
  "feTurbulence",
] as const;

/** Elements kept, by their exact (case-sensitive, unprefixed) XML name. `feImage` loads images: left out. */
export const SVG_ELEMENTS: readonly string[] = [
  "svg",
  "g",
  "defs",
  "symbol",
  "use",
  "switch",
  "title",
  "desc",
  "path",
  "rect",
  "circle",
  "ellipse",
  "line",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "textPath",
  "linearGradient",
  "radialGradient",
  "stop",
  "pattern",
  "clipPath",
  "mask",
  "marker",
  "filter",
  "style",
  ...FILTER_PRIMITIVES,
];

/**
 * Elements left out together with everything inside them: what they hold is not picture (script,
 * embedded documents, metadata) or changes the picture over time.
 */
export const SVG_DROPPED_WHOLE: readonly string[] = [
  "script",
  "foreignObject",
  "iframe",
  "object",
  "embed",
  "metadata",
  "set",
  "animate",
  "animateMotion",
  "animateTransform",
  "animateColor",
  "discard",
  "noscript",
  "textarea",
  "xmp",
];

/** Attributes kept on any kept element (values judged by {@link svgAttributeKept}). */
export const SVG_ATTRIBUTES: readonly string[] = [
  // Identity, namespaces and language.
  "id",
  "class",
  "style",
  "lang",
  "xml:lang",
  "xml:space",
  "xmlns",
  "xmlns:xlink",
  "version",
  // In-file references only (see svgAttributeKept).
  "href",
  "xlink:href",
  // Geometry.
  "viewBox",
  "preserveAspectRatio",
  "transform",
  "x",
  "y",
  "x1",
  "y1",
  "x2",
  "y2",
  "cx",
  "cy",
  "r",
  "rx",
  "ry",
  "fx",
  "fy",
  "fr",
  "width",
  "height",
  "d",
  "points",
  "pathLength",
  // Text.
  "dx",
  "dy",
  "rotate",
  "textLength",
  "lengthAdjust",
  "startOffset",
  "method",
  "spacing",
  "side",
  // Presentation.
  "fill",
  "fill-opacity",
  "fill-rule",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-linecap",
  "stroke-linejoin",
  "stroke-miterlimit",
  "stroke-dasharray",
  "stroke-dashoffset",
  "opacity",
  "clip-path",
  "clip-rule",
  "mask",
  "filter",
  "display",
  "visibility",
  "overflow",
  "color",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "font-variant",
  "font-stretch",
  "text-anchor",
  "dominant-baseline",
  "alignment-baseline",
  "baseline-shift",
  "letter-spacing",
  "word-spacing",
  "text-decoration",
  "writing-mode",
  "direction",
  "unicode-bidi",
  "paint-order",
  "vector-effect",
  "shape-rendering",
  "text-rendering",
  "image-rendering",
  "color-interpolation",
  "color-interpolation-filters",
  "stop-color",
  "stop-opacity",
  "flood-color",
  "flood-opacity",
  "lighting-color",
  "marker-start",
  "marker-mid",
  "marker-end",
  "mix-blend-mode",
  "isolation",
  // Paint servers, clips, masks, markers.
  "offset",
  "gradientUnits",
  "gradientTransform",
  "spreadMethod",
  "patternUnits",
  "patternContentUnits",
  "patternTransform",
  "clipPathUnits",
  "maskUnits",
  "maskContentUnits",
  "markerWidth",
  "markerHeight",
  "markerUnits",
  "refX",
  "refY",
  "orient",
  // Filters.
  "filterUnits",
  "primitiveUnits",
  "in",
  "in2",
  "result",
  "stdDeviation",
  "mode",
  "type",
  "values",
  "operator",
  "k1",
  "k2",
  "k3",
  "k4",
  "order",
  "kernelMatrix",
  "divisor",
  "bias",
  "targetX",
  "targetY",
  "edgeMode",
  "kernelUnitLength",
  "preserveAlpha",
  "surfaceScale",
  "diffuseConstant",
  "specularConstant",
  "specularExponent",
  "scale",
  "xChannelSelector",
  "yChannelSelector",
  "azimuth",
  "elevation",
  "z",
  "pointsAtX",
  "pointsAtY",
  "pointsAtZ",
  "limitingConeAngle",
  "baseFrequency",
  "numOctaves",
  "seed",
  "stitchTiles",
  "radius",
  "tableValues",
  "slope",
  "intercept",
  "amplitude",
  "exponent",
];

/**
 * CSS functions a value may call: colours, arithmetic, transforms, filter effects, gradients, and
 * `url()` to an `#id` of the same file. Any other (`image-set()`, `image()`, `src()`...) may load
 * something from elsewhere, so a value calling it is left out.
 */
const CSS_FUNCTIONS = new Set([
  "url",
  "rgb",
  "rgba",
  "hsl",
  "hsla",
  "hwb",
  "lab",
  "lch",
  "oklab",
  "oklch",
  "calc",
  "min",
  "max",
  "clamp",
  "var",
  "matrix",
  "translate",
  "translatex",
  "translatey",
  "rotate",
  "scale",
  "scalex",
  "scaley",
  "skewx",
  "skewy",
  "blur",
  "brightness",
  "contrast",
  "drop-shadow",
  "grayscale",
  "hue-rotate",
  "invert",
  "opacity",
  "saturate",
  "sepia",
  "linear-gradient",
  "radial-gradient",
]);

/** A function's name: read from the start of a name only, so a long run of letters is read once. */
const FUNCTION_CALL = /(?<![\w-])([a-z_-][\w-]*)\s*\(/gi;
/** A `url(` whose argument (quoted or not, even unclosed) does not start with `#`. */
const URL_ELSEWHERE = /url\s*\((?!\s*["']?#)/i;
/** A same-document reference: a fragment alone. */
const IN_FILE = /^#\S*$/;

/**
 * A presentation value, `style` attribute or stylesheet that loads nothing: no at-rule (`@import`,
 * `@font-face`), no backslash (a CSS escape can spell `url` or a scheme unseen), no function but
 * those listed, and every `url()` pointing at an `#id` of the file itself.
 */
export const cssInert = (value: string): boolean => {
  if (/[@\\]/.test(value) || URL_ELSEWHERE.test(value)) return false;
  for (const [, name] of value.matchAll(FUNCTION_CALL)) {
    if (!CSS_FUNCTIONS.has((name ?? "").toLowerCase())) return false;
  }
  return true;
};

/**
 * A stylesheet (the text of a `<style>` element) kept as written: inert, and with no `<` or `&`,
 * which would have to be escaped to stay well-formed XML and a stylesheet does not need.
 */
export const styleSheetKept = (text: string): boolean => !/[<&]/.test(text) && cssInert(text);

/**
 * Whether an attribute on the list keeps its value: links point at an `#id` of the same file
 * (never `javascript:`, `data:` or another address), namespace declarations name SVG and XLink
 * only, and every other value is {@link cssInert} (presentation attributes take `url()`).
 */
export const svgAttributeKept = (name: string, value: string): boolean => {
  if (name === "href" || name === "xlink:href") return IN_FILE.test(value.trim());
  if (name === "xmlns") return value === SVG_NAMESPACE;
  if (name === "xmlns:xlink") return value === XLINK_NAMESPACE;
  return cssInert(value);
};
