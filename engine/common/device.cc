#include "common/device.h"

#include <regex>

#include "common/error.h"

namespace qv {

Device ParseDevice(const std::string& text) {
  static const std::regex pattern(R"(\s*(cpu|gpu)\s*(\(\s*(\d{1,6})\s*\))?\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern))
    throw Error(QV_ERR_INVALID_ARGUMENT, "bad device '" + text + "': expected cpu, cpu(0) or gpu(N)");
  Device d;
  d.type = m[1] == "gpu" ? QV_GPU : QV_CPU;
  d.id = m[3].matched ? std::stoi(m[3].str()) : 0;
  return d;
}

}  // namespace qv
