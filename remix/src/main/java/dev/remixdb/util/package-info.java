/**
 * Low-level helpers shared by every layer of the store: the one home of the key and value limits,
 * CRC32C checksums, varints, growable native buffers and closing several resources. It lives in the
 * lowest module (the REMIX module, JDK only) so that both the REMIX and the engine use the same
 * code; the module exports it to the engine only, never to users.
 */
package dev.remixdb.util;
