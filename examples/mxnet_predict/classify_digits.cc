// An image classifier written for MXNet's C predict API (mxnet/c_predict_api.h), as deployed MXNet
// programs are: nothing in it knows Quiver. Built once with -lmxnet, it runs on MXNet's libmxnet.so
// or on Quiver's drop-in, chosen by LD_LIBRARY_PATH alone:
//
//   c++ -std=c++17 -I<mxnet>/include classify_digits.cc -o classify_digits -L<dir> -lmxnet
//   LD_LIBRARY_PATH=build/mxnet_compat ./classify_digits PREFIX SYNSET IMAGES.f32 [LABELS.i32] [--min-accuracy A]
//
// PREFIX-symbol.json and PREFIX-0000.params are the model (scripts/make_fixtures.sh makes digits_cnn,
// a small CNN on 8x8 grey digits); IMAGES.f32 holds N preprocessed 1x8x8 float32 images; with the
// labels it reports the accuracy and fails below --min-accuracy.
#include <stdbool.h>
#include <stdint.h>

#include <mxnet/c_predict_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kChannels = 1, kHeight = 8, kWidth = 8;
constexpr uint32_t kImage = kChannels * kHeight * kWidth;

std::vector<char> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void Check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string(what) + ": " + MXGetLastError());
}

// One predictor, one image at a time, as the classic MXNet image-classification example does.
class Classifier {
 public:
  Classifier(const std::string& prefix) {
    const std::vector<char> json = ReadBytes(prefix + "-symbol.json");
    const std::string symbol(json.begin(), json.end());
    const std::vector<char> params = ReadBytes(prefix + "-0000.params");
    const char* keys[1] = {"data"};
    const uint32_t indptr[2] = {0, 4};
    const uint32_t shape[4] = {1, kChannels, kHeight, kWidth};
    Check(MXPredCreate(symbol.c_str(), params.data(), static_cast<int>(params.size()), 1, 0, 1, keys, indptr, shape,
                       &handle_),
          "MXPredCreate");
    uint32_t* out_shape = nullptr;
    uint32_t ndim = 0;
    Check(MXPredGetOutputShape(handle_, 0, &out_shape, &ndim), "MXPredGetOutputShape");
    classes_ = 1;
    for (uint32_t i = 0; i < ndim; ++i) classes_ *= out_shape[i];
  }
  ~Classifier() { MXPredFree(handle_); }

  uint32_t classes() const { return classes_; }

  // The most likely class of one preprocessed image.
  int Classify(const float* image) {
    std::vector<float> scores(classes_);
    Check(MXPredSetInput(handle_, "data", image, kImage), "MXPredSetInput");
    Check(MXPredForward(handle_), "MXPredForward");
    Check(MXPredGetOutput(handle_, 0, scores.data(), classes_), "MXPredGetOutput");
    return static_cast<int>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  }

 private:
  PredictorHandle handle_ = nullptr;
  uint32_t classes_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  double min_accuracy = -1;
  auto flag = std::find(args.begin(), args.end(), "--min-accuracy");
  if (flag != args.end() && flag + 1 != args.end()) {
    min_accuracy = std::atof((flag + 1)->c_str());
    args.erase(flag, flag + 2);
  }
  if (args.size() < 3 || args.size() > 4) {
    std::fprintf(stderr, "usage: %s PREFIX SYNSET IMAGES.f32 [LABELS.i32] [--min-accuracy A]\n", argv[0]);
    return 2;
  }
  try {
    Classifier classifier(args[0]);
    const std::vector<std::string> synset = ReadLines(args[1]);
    const std::vector<char> images = ReadBytes(args[2]);
    if (images.size() % (kImage * sizeof(float)) != 0) throw std::runtime_error(args[2] + ": not N 1x8x8 images");
    if (synset.size() != classifier.classes())
      throw std::runtime_error("the synset names " + std::to_string(synset.size()) + " classes, the model has " +
                               std::to_string(classifier.classes()));
    const size_t n = images.size() / (kImage * sizeof(float));
    std::vector<int32_t> labels;
    if (args.size() == 4) {
      const std::vector<char> raw = ReadBytes(args[3]);
      labels.resize(raw.size() / sizeof(int32_t));
      std::copy(raw.begin(), raw.end(), reinterpret_cast<char*>(labels.data()));
      if (labels.size() != n) throw std::runtime_error("the labels do not match the images in number");
    }
    std::vector<float> image(kImage);
    size_t correct = 0;
    for (size_t i = 0; i < n; ++i) {
      std::copy_n(images.data() + i * sizeof(float) * kImage, sizeof(float) * kImage,
                  reinterpret_cast<char*>(image.data()));
      const int predicted = classifier.Classify(image.data());
      if (i < 5) std::printf("image %zu: %s\n", i, synset[predicted].c_str());
      if (!labels.empty() && predicted == labels[i]) ++correct;
    }
    if (labels.empty()) return 0;
    const double accuracy = static_cast<double>(correct) / static_cast<double>(n);
    std::printf("accuracy %.4f (%zu/%zu)\n", accuracy, correct, n);
    if (accuracy < min_accuracy) {
      std::fprintf(stderr, "accuracy %.4f is below %.4f\n", accuracy, min_accuracy);
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "classify_digits: %s\n", e.what());
    return 1;
  }
}
