# Sourced by ./mvnw and bench/run: find_jdk prints the path of a `java` of version 25 or newer,
# looking at $JAVA_HOME, `java` on PATH and the usual install folders; returns 1 when none exists.
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}'
}

find_jdk() {
  local c v
  for c in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" \
           /usr/lib/jvm/*/bin/java "$HOME"/.sdkman/candidates/java/*/bin/java /opt/java/*/bin/java \
           /Library/Java/JavaVirtualMachines/*/Contents/Home/bin/java; do
    [ -n "$c" ] && [ -x "$c" ] || continue
    v="$(java_major "$c")"
    if [ -n "$v" ] && [ "${v%%.*}" -ge 25 ] 2>/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}

no_jdk_message() {
  echo "error: RemixDB needs a JDK 25 or newer and none was found (checked JAVA_HOME, PATH, /usr/lib/jvm)." >&2
  echo "Install one, e.g. Eclipse Temurin 25 ('apt-get install temurin-25-jdk' from the Adoptium repository," >&2
  echo "or 'sdk install java 25-tem'), or point JAVA_HOME at it." >&2
}
