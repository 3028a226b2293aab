// The local API's routes as people are shown them (the screen's /api and /help). Kept apart
// from server.ts so that the screen can list them without loading the server (zod, http);
// test/integration/api-routes.test.ts holds this list to what the server answers.

interface ApiRoute {
  /** the path as typed, with ID, SECTION and PAGE to fill in */
  path: string;
  what: string;
}

export const API_ROUTES: readonly ApiRoute[] = [
  { path: "/health", what: "status, capabilities and version" },
  { path: "/sessions/ID/context", what: "the last request's sections, or pending with its reason" },
  { path: "/sessions/ID/context/SECTION/PAGE", what: "one page of a section's text (SECTION and PAGE count from 0)" },
];
