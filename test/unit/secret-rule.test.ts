// What counts as a secret (src/config/secrets.ts): the rule for one value, the names that
// look like credentials, the parts of a URL or a header, and what an MCP entry makes secret
// (every `${VAR}` wherever it is expanded, headers, credential-named env entries and flags,
// the user's own marking), never a path, a word, a number or a piece of the workspace path,
// whatever a project's .mcp.json says.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { tempDir } from "../helpers/tmp.js";
import { credentialName, secretParts, secretValue, secretsAmong, type SecretContext } from "../../src/config/secrets.js";
import { loadExtensionConfig } from "../../src/extensions/config.js";

const ctx = (workspace: string, home?: string): SecretContext => ({ workspace, ...(home ? { home } : {}), exists: (p) => fs.existsSync(p) });

describe("credential names", () => {
  it("a name part TOKEN, KEY, SECRET, PASSWORD… (any case, singular or plural, camelCase or a compound) marks a credential", () => {
    for (const n of [
      "GITHUB_TOKEN",
      "API_KEY",
      "apiKey",
      "OPENAI_APIKEY",
      "DB_PASSWORD",
      "AWS_SECRET_ACCESS_KEY",
      "SESSION_COOKIE",
      "MY_PASS",
      "ACCESS_TOKENS",
      "clientSecret",
      "GITHUB_PAT",
      "X-Api-Key",
      "Authorization",
      "SENTRY_DSN",
      "token",
      "api-key",
      "PRIVATE_KEY_PEM",
      "DB_CREDENTIALS",
    ]) {
      expect(credentialName(n), n).toBe(true);
    }
  });
  it("other names do not: the working folder, paths, versions, words that merely contain a credential word", () => {
    for (const n of ["PROJECT_ROOT", "PATH", "PWD", "HOME", "KEYBOARD_LAYOUT", "PASSAGE_DIR", "API_VERSION", "NODE_OPTIONS", "TOKENIZER_MODEL", "MONKEY", "LOG_LEVEL", "PATHEXT"]) {
      expect(credentialName(n), n).toBe(false);
    }
  });
});

describe("the rule for one value", () => {
  it("generated-looking values of 12 characters or more are secrets", async () => {
    const c = ctx(await tempDir("albedo-ws-"));
    for (const v of [
      "ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
      "a3f1c9e07b2d4e5f8a9b0c1d2e3f4a5b",
      "AKIAJ3K5L2MNOPQ7RSTU",
      "sk-ant-api03-AbCdEf123456",
      "xoxb-1234-5678-AbCdEfGh",
      "Tr0ub4dor&3xyz",
      "AbCdEfGhIjKlMnOp",
    ]) {
      expect(secretValue(v, c), v).toBe(true);
    }
  });

  it("words, names, numbers, short values and values with whitespace are not", async () => {
    const c = ctx(await tempDir("albedo-ws-"));
    for (const v of [
      "function",
      "implementation-details",
      "ExtensionManager",
      "HelloWorldFunction",
      "PROJECT_ROOT_DIRECTORY",
      "1234567890123456",
      "2024-01-15 10:00",
      "ghp_short1",
      "Bearer ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7",
      "ordinary words a file could pick",
    ]) {
      expect(secretValue(v, c), v).toBe(false);
    }
  });

  it("never a path of this machine, a part of the workspace path, or a value holding the workspace path", async () => {
    const home = await tempDir("albedo-home-");
    const ws = path.join(home, "projects", "app2024");
    await fsp.mkdir(path.join(ws, "src"), { recursive: true });
    await fsp.writeFile(path.join(ws, "src", "main2.ts"), "");
    const c = ctx(ws, home);
    for (const v of [
      ws,
      path.dirname(ws),
      `${ws}/build/output-v2`, // under the workspace, though it does not exist
      "src/main2.ts", // exists, relative to the workspace
      "~/projects/app2024",
      `${process.execPath}`,
      `${path.dirname(process.execPath)}:/usr/bin:${ws}`, // a PATH list
      `unix:path=${ws}/src`,
    ]) {
      expect(secretValue(v, c), v).toBe(false);
    }
    // a path that exists nowhere and is not under the workspace is judged as any other value
    expect(secretValue("/nonexistent-4f9a/token-8Hq2", c)).toBe(true);
  });

  it("a URL counts by its credentials, path segments and query values, never its scheme and host", () => {
    expect(secretParts("https://hooks.example.invalid/services/T00000000/B0000/XyZ123abcDEF456ghi")).toContain("XyZ123abcDEF456ghi");
    const c = { workspace: "/nonexistent-ws", exists: () => false };
    expect(secretsAmong(["https://hooks.example.invalid/services/T0/B0/XyZ123abcDEF456ghi"], c)).toEqual(["XyZ123abcDEF456ghi"]);
    expect(secretsAmong(["https://api.example.invalid/v1/chat/completions"], c)).toEqual([]);
    expect(secretsAmong(["postgres://admin:S3cretPassw0rd99@db.internal:5432/app"], c)).toEqual(["S3cretPassw0rd99"]);
    expect(secretsAmong(["http://127.0.0.1:9/mcp?token=qtok9F8e7D6c5B4a3Z2y"], c)).toEqual(["qtok9F8e7D6c5B4a3Z2y"]);
    // a header: the token after its scheme
    expect(secretsAmong(["Bearer ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"], c)).toEqual(["ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7"]);
  });
});

describe("what an MCP entry makes secret", () => {
  async function load(config: unknown, project: unknown, env: NodeJS.ProcessEnv): Promise<{ secrets: string[]; ws: string }> {
    const root = await tempDir("albedo-secret-cfg-");
    const ws = path.join(root, "home", "me", "app");
    await fsp.mkdir(ws, { recursive: true });
    const configFile = path.join(root, "config.json");
    await fsp.writeFile(configFile, JSON.stringify(config));
    if (project) await fsp.writeFile(path.join(ws, ".mcp.json"), JSON.stringify(project));
    const c = loadExtensionConfig({ configFile, workspace: ws, env: { HOME: path.join(root, "home", "me"), ...env } });
    return { secrets: [...new Set(c.servers.flatMap((s) => s.secrets))].sort(), ws };
  }

  it("every value read from the environment, wherever it is expanded: args, command, url, env, headers", async () => {
    const env = { ARG: "argtok_9xY8wV7uT6sR5q", CMD: "cmdtok_1aB2cD3eF4gH5i", URLTOK: "urltok_Z9y8X7w6V5u4", ENVV: "envtok_Q1w2E3r4T5y6U7", HDR: "hdrtok_M1n2B3v4C5x6Z7" };
    const { secrets } = await load(
      {
        mcpServers: {
          s: { command: "/opt/${CMD}/run", args: ["--token", "${ARG}", "--level=${NOT_SET:-info}"], env: { PLAIN_NAME: "${ENVV}" } },
          h: { url: "http://127.0.0.1:1/mcp/${URLTOK}", headers: { "X-Whatever": "${HDR}" } },
        },
      },
      undefined,
      env,
    );
    expect(secrets).toEqual(Object.values(env).sort());
  });

  it("a value read from the environment counts whatever its shape (a plain passphrase), never when it is a path or the workspace's", async () => {
    const { secrets, ws } = await load(
      { mcpServers: { a: { command: "srv", args: ["--pass-file", "${PASSPHRASE_VAR}", "${WS}", "${WORD}"] } } },
      undefined,
      { PASSPHRASE_VAR: "correcthorsebatterystaple", WORD: "short", WS: "/" },
    );
    expect(secrets).toContain("correcthorsebatterystaple");
    expect(secrets).not.toContain("short");
    expect(secrets.some((s) => ws.includes(s) || s === "/")).toBe(false);
  });

  it("literal values count by their place: credential-named env entries and flags, headers, a URL's password, the user's own marking", async () => {
    const { secrets } = await load(
      {
        mcpSecretEnv: ["MY_THING"],
        mcpServers: {
          s: {
            command: "srv",
            args: ["--api-key=lit_flag_Aa11Bb22Cc33", "--verbose", "lit_positional_Dd44Ee55", "--password", "lit_next_Ff66Gg77Hh88"],
            env: { API_TOKEN: "lit_env_Ii99Jj00Kk11", MY_THING: "lit_marked_Ll22Mm33", VERSION_TAG: "release-2024-11-v3", DATABASE_URL: "postgres://u:lit_Pw_Nn44Oo55Pp66@db/app" },
          },
          // a URL's user:password@ is refused by name (mcp-failures.test.ts); its query credentials count
          h: { url: "http://127.0.0.1:1/mcp?access_token=lit_urlq_Qq77Rr88", headers: { Authorization: "Bearer lit_hdr_Ss99Tt00Uu11" } },
        },
      },
      undefined,
      {},
    );
    expect(secrets).toEqual(
      ["lit_flag_Aa11Bb22Cc33", "lit_next_Ff66Gg77Hh88", "lit_env_Ii99Jj00Kk11", "lit_marked_Ll22Mm33", "lit_Pw_Nn44Oo55Pp66", "lit_urlq_Qq77Rr88", "lit_hdr_Ss99Tt00Uu11"].sort(),
    );
  });

  it("an approved .mcp.json cannot blank a word, a path or the workspace path: PROJECT_ROOT and API_KEY=function are no secrets", async () => {
    const existing = await tempDir("albedo-path-9x8Y7z-");
    const { secrets, ws } = await load(
      { mcpServers: { mine: { command: "srv", env: { PROJECT_ROOT: "/home/me/app", HOME_DIR: "${HOME}", WORKDIR: "${PWD_COPY}" } } } },
      {
        mcpServers: {
          proj: {
            command: "srv",
            cwd: "${HOME}/app",
            env: { API_KEY: "function", SECRET: "implementation-details", AUTH_TOKEN: "ExtensionManager", SESSION_PATH: existing, TOKEN: "12345678901234567890", PROJECT_ROOT_KEY: "/home/me/app" },
          },
        },
      },
      // the workspace path's own tail, as a variable would give it
      { PWD_COPY: "/home/me/app" },
    );
    expect(secrets).toEqual([]);
    expect(ws.endsWith(path.join("home", "me", "app"))).toBe(true);
  });

  it("a project's file marks only values holding a generated run, and reads whole only variables named like credentials", async () => {
    const env = { TERM: "xterm-256color", GH_TOKEN: "ghp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6", PLAIN: "a3f1c9e07b2d4e5f8a9b0c1d2e3f4a5b", WORDS_TOKEN: "correcthorsebatterystaple" };
    const project = {
      mcpServers: {
        p: {
          command: "srv",
          args: ["--token", "x86_64-linux-gnu", "${PLAIN}"],
          env: { API_KEY: "localhost:3000", AUTH: "2024-01-15T10:30:00Z", SECRET: "lit_env_Ii99Jj00Kk11", SHOWN: "${TERM}", GITHUB_TOKEN: "${GH_TOKEN}", PASSPHRASE_TOKEN: "${WORDS_TOKEN}" },
        },
      },
    };
    const { secrets } = await load({}, project, env);
    expect(secrets).toEqual(["lit_env_Ii99Jj00Kk11", env.GH_TOKEN, env.PLAIN, env.WORDS_TOKEN].sort());
    // the same text in the user's own file counts as the rule for every file says
    const own = await load({ mcpServers: project.mcpServers }, undefined, env);
    expect(own.secrets).toContain("localhost:3000");
    expect(own.secrets).toContain("xterm-256color");
  });
});
