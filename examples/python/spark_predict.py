"""Batch inference with PySpark: quiver.spark.predict_batch_udf on a DataFrame, run with spark-submit.

    spark-submit --master 'local[2]' spark_predict.py MODEL_PREFIX --rows ROWS.npy OUT.json
    spark-submit --master 'local[2]' spark_predict.py MODEL_PREFIX --images DIR OUT.json --kind image_classifier

--rows: ROWS.npy holds one model input per row (N, ...), sent to Spark as a flattened array<float>
column beside an "id" column; OUT.json maps each id to the model's outputs (flattened, by output name).
--images: the image files under DIR, read with Spark's binaryFile source and decoded in the workers;
OUT.json maps each path to its best label and probability. --model-kwargs takes the model's keywords
as JSON (e.g. '{"synset": ["cat", "dog"]}').
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np
from pyspark.sql import SparkSession  # type: ignore[import-not-found]  # (mypy runs without pyspark)

from quiver.spark import predict_batch_udf


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model_prefix")
    parser.add_argument("out")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--rows")
    source.add_argument("--images")
    parser.add_argument("--kind", default="predictor", choices=["predictor", "classifier", "image_classifier"])
    parser.add_argument("--model-kwargs", default="{}", help="the model's keywords, as JSON")
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()

    spark = SparkSession.builder.appName("quiver spark_predict").getOrCreate()
    kwargs = json.loads(args.model_kwargs)
    results = {}
    if args.images:
        classify = predict_batch_udf(args.model_prefix, kind=args.kind, batch_size=args.batch_size, **kwargs)
        images = spark.read.format("binaryFile").load(args.images)
        for row in images.withColumn("top1", classify("content")).select("path", "top1.*").collect():
            results[row["path"]] = {"label": row["label"], "probability": row["probability"]}
    else:
        rows = np.load(args.rows)
        frame = spark.createDataFrame([(i, row.reshape(-1).tolist()) for i, row in enumerate(rows)],
                                      "id long, data array<float>")
        predict = predict_batch_udf(args.model_prefix, kind=args.kind, batch_size=args.batch_size,
                                    input_tensor_shapes=[list(rows.shape[1:])], **kwargs)
        for row in frame.withColumn("out", predict("data")).select("id", "out").collect():
            out = row["out"]
            results[str(row["id"])] = out.asDict() if hasattr(out, "asDict") else {"output": out}
    with open(args.out, "w") as f:
        json.dump(results, f)
    print(f"{len(results)} results")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
