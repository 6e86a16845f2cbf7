// Int8 calibration of float32 models (engine/calibration).
#include <cstdio>

#include "arguments.h"
#include "handles.h"

using namespace qv;

namespace {

// QvCalibratorCreate's flags: calib_mode "naive" (the default) or "entropy".
CalibrationMode CalibrationModeOf(const std::vector<std::pair<std::string, std::string>>& flags) {
  CalibrationMode mode = CalibrationMode::kNaive;
  for (const auto& [key, value] : flags) {
    Check(key == "calib_mode", Status::kInvalidArgument, "unknown calibrator flag '" + key + "' (known: calib_mode)");
    Check(value == "naive" || value == "entropy", Status::kInvalidArgument,
          "calib_mode '" + value + "' is not supported (supported: naive, entropy)");
    mode = value == "entropy" ? CalibrationMode::kEntropy : CalibrationMode::kNaive;
  }
  return mode;
}

void WriteFile(const std::string& path, const std::string& bytes, const char* what) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  Check(f != nullptr, Status::kInvalidArgument, std::string("cannot open ") + what + " file '" + path + "' for writing");
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  Check(written && closed, Status::kInvalidArgument, std::string("cannot write ") + what + " file '" + path + "'");
}

}  // namespace

extern "C" {

int QvCalibratorCreate(QvSymbolHandle sym, uint32_t num_params, const char** param_names, QvNDArrayHandle* params,
                       int num_flags, const char** keys, const char** vals, QvCalibratorHandle* out) {
  return capi::Guard([&] {
    const std::shared_ptr<QvSymbol_> symbol = capi::Symbols().Get(sym, "symbol");
    capi::Require(out, "out");
    const CalibrationMode mode = CalibrationModeOf(capi::Flags(num_flags, keys, vals));
    auto h = std::make_shared<QvCalibrator_>();
    h->calibrator =
        std::make_unique<Calibrator>(symbol->graph, capi::NamedParams(num_params, param_names, params), mode);
    h->inputs = capi::NameList(h->calibrator->input_names());
    *out = capi::Calibrators().Add(std::move(h));
  });
}

int QvCalibratorListInputs(QvCalibratorHandle c, uint32_t* n, const char*** names) {
  return capi::Guard([&] { capi::Calibrators().Get(c, "calibrator")->inputs.Publish(n, names); });
}

int QvCalibratorAddBatch(QvCalibratorHandle c, uint32_t num_inputs, QvNDArrayHandle* inputs) {
  return capi::Guard([&] {
    const std::shared_ptr<QvCalibrator_> h = capi::Calibrators().Get(c, "calibrator");
    if (num_inputs > 0) capi::Require(inputs, "inputs");
    std::vector<NDArrayPtr> in;
    for (uint32_t i = 0; i < num_inputs; ++i) in.push_back(capi::ArrayOf(inputs[i], "an input array"));
    h->calibrator->AddBatch(in);
  });
}

int QvCalibratorSave(QvCalibratorHandle c, const char* symbol_path, const char* params_path) {
  return capi::Guard([&] {
    const std::shared_ptr<QvCalibrator_> h = capi::Calibrators().Get(c, "calibrator");
    capi::Require(symbol_path, "symbol_path");
    capi::Require(params_path, "params_path");
    const QuantizedModel model = h->calibrator->Save();
    WriteFile(symbol_path, model.symbol_json, "symbol");
    WriteFile(params_path, SaveParams(model.params), "params");
  });
}

int QvCalibratorFree(QvCalibratorHandle c) {
  return capi::Guard([&] { capi::Calibrators().Free(c, "calibrator"); });
}

}  // extern "C"
