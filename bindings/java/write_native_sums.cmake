# Writes DIR/natives.sha256: "SUM  NAME" for each library the jar carries (cmake -DDIR=... -P this file).
set(lines "")
foreach(name libquiver.so.1 libquiver_jni.so)
  file(SHA256 ${DIR}/${name} sum)
  string(APPEND lines "${sum}  ${name}\n")
endforeach()
file(WRITE ${DIR}/natives.sha256 "${lines}")
