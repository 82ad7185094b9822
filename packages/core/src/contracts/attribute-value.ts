/** A filterable attribute value. */
export type AttributeValue = string | number | boolean | null;
