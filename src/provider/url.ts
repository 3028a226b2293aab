// Where a request goes, as the person reads it in a label or a failure.

/** A configured base URL without its trailing slashes (the endpoint's path follows it). */
export function baseUrl(configured: string | undefined, fallback: string): string {
  return (configured ?? fallback).replace(/\/+$/, "");
}

export function hostOf(base: string): string {
  try {
    return new URL(base).host;
  } catch {
    return base;
  }
}

export function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
