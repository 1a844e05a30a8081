/**
 * The environment agent commands run with (SPEC 4.4): the host's, minus every variable that
 * holds or reaches a secret — by its name (provider keys, tokens, passwords, cloud credentials,
 * agent sockets, git configuration passed in the environment, header lists) or by its value
 * (secret-values.ts: a URL with a user part, an auth scheme, an auth-ish item in a list, a token
 * shape or a token-looking string) — unless the user's policy passes it by name (`commands.pass_env`).
 * `printenv` must never hand the model a key. Shell start-up files named in the environment
 * (`BASH_ENV`, `ENV`) are dropped too: they run with the command and could export keys again.
 *
 * Names are judged by their words (`GIT_AUTHOR_NAME` is not an `AUTH`, `TOKENIZERS_PARALLELISM`
 * not a `TOKEN`, `GOPRIVATE` not a private key), so the toolchain's own settings survive.
 */
import { isSecretValue } from './secret-values';

/** A word that is a secret, or a way to one, wherever it stands in the name. */
const SECRET_WORD =
  /^(?:AUTH|AUTHORIZATION|SECRETS?|PASSWORDS?|PASSWD|PASSPHRASE|CREDENTIALS?|CREDS|COOKIES?|SIGNATURE|DSN|JWT|WEBHOOKS?|BEARER|LOGIN|TOTP|PAT|PW|PRIVATE|SASL|JAAS|NETRC|APIKEY|CONNECTIONSTRING|SESSIONID)$/;
/** A word that ends like a secret (`GITHUBTOKEN`, `SSHPASS`, `OAUTH`, `SUDO_ASKPASS`). */
const SECRET_ENDING = /(?:TOKENS?|SECRET|PASSWORD|PASSWD|PASS|AUTH|APIKEY|CREDENTIALS|ASKPASS)$/;
/** What may follow `KEY` in a name about a key (`AWS_ACCESS_KEY_ID`, `SSH_KEY_PATH`); elsewhere `KEY` names a column. */
const AFTER_KEY = /^(?:ID|FILE|PATH|DATA|B64|BASE64|JSON|PEM|PASSWORD)$/;
/**
 * Whole families: providers, clouds, registries, agent sockets, credentials in git settings,
 * Bundler's per-host credentials (`BUNDLE_GEMS__EXAMPLE__COM=user:pass`), npm's registry-scoped
 * and auth settings, the files where CI steps set the next steps' environment.
 */
const SECRET_FAMILY =
  /^(ANTHROPIC_|OPENAI_|AZURE_|AWS_|GOOGLE_|GCLOUD_|GCP_|CLOUDSDK_|GEMINI_|MISTRAL_|GROQ_|COHERE_|DEEPSEEK_|OPENROUTER_|TOGETHER_|XAI_|OPENAGENT_|PYPI_|TWINE_|STRIPE_|SLACK_|GIT_CONFIG_|BUNDLE_\w*__|NPM_CONFIG_(?:_|\W|.*\/|USERCONFIG$|GLOBALCONFIG$|EMAIL$|CERT$|KEY$|USERNAME$)|DOCKER_(?:CONFIG|HOST|CERT_PATH|CONTEXT)$|GITHUB_(?:ENV|OUTPUT|PATH|STATE|STEP_SUMMARY)$|KUBECONFIG$|BW_SESSION$|OP_SESSION_|KRB5CCNAME$|KRB5_KTNAME$|DATABASE_URL$|PG(PASSWORD|PASSFILE|SERVICEFILE)$|MYSQL_PWD$|REDIS_URL$|SSH_AUTH_SOCK$|SSH_AGENT|GPG_AGENT|DBUS_SESSION_BUS_ADDRESS$)/i;
/** Kept even though the name looks secret: the shell's own working folder, a cloud's region and project. */
const NOT_SECRET = new Set(['PWD', 'OLDPWD', 'AWS_REGION', 'AWS_DEFAULT_REGION', 'GOOGLE_CLOUD_PROJECT']);
/** Start-up files the shell runs with every command: what they export is never judged. */
const STARTUP_FILES = new Set(['BASH_ENV', 'ENV']);

export function isSecretVariable(name: string, value = ''): boolean {
  if (NOT_SECRET.has(name)) return false;
  return isSecretName(name) || SECRET_FAMILY.test(name) || isSecretValue(value);
}

/** Whether a variable's name says it holds (or leads to) a secret, judged word by word. */
export function isSecretName(name: string): boolean {
  const words = name
    .split(/[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])/)
    .filter(Boolean)
    .map((word) => word.toUpperCase());
  return words.some((word, at) => {
    const next = words[at + 1];
    if (SECRET_WORD.test(word) || SECRET_ENDING.test(word)) return true;
    if (/KEY$/.test(word) && (next === undefined || AFTER_KEY.test(next))) return true;
    if (word === 'SESSION' && (next === 'ID' || next === 'KEY')) return true;
    if (word === 'CONNECTION' && (next === 'STRING' || next === 'STR')) return true;
    if ((word === 'HEADERS' || word === 'HEADER') && next === undefined) return true;
    if (word === 'OTP' && next === 'SEED') return true;
    // `MYSQL_PWD`, `DB_PW`, `PWD_FILE`: a password, except the shell's `PWD`/`OLDPWD`.
    return word === 'PWD' && words.length > 1;
  });
}

/** A copy of `env` without secret variables; `pass` names the ones kept anyway. */
export function scrubEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  pass: readonly string[] = [],
): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (STARTUP_FILES.has(name) && !pass.includes(name)) continue;
    if (isSecretVariable(name, value) && !pass.includes(name)) continue;
    kept[name] = value;
  }
  return kept;
}
