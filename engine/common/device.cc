#include "common/device.h"

#include <cctype>

#include "common/error.h"

namespace qv {

Device ParseDevice(const std::string& text) {
  const auto bad = [&] {
    return Error(Status::kInvalidArgument, "bad device '" + text + "': expected cpu, cpu(0) or gpu(N)");
  };
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  Device d;
  if (s.rfind("cpu", 0) == 0) d.type = DeviceType::kCpu;
  else if (s.rfind("gpu", 0) == 0) d.type = DeviceType::kGpu;
  else throw bad();
  const std::string rest = s.substr(3);
  if (rest.empty()) return d;
  if (rest.size() < 3 || rest.size() > 8 || rest.front() != '(' || rest.back() != ')') throw bad();
  const std::string digits = rest.substr(1, rest.size() - 2);
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) throw bad();
  d.id = std::stoi(digits);
  return d;
}

}  // namespace qv
