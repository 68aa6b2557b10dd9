#
# Copyright (C) 2018 The Android Open Source Project
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#

input0 = Input("input0", "TENSOR_FLOAT32", "{1, 3, 2}")
axis = 1
indices = Input("indices", "TENSOR_INT32", "{3, 2}")
output0 = Output("output0", "TENSOR_FLOAT32", "{1, 3, 2, 2}")

model = Model().Operation("GATHER", input0, axis, indices).To(output0)

quant8 = DataTypeConverter().Identify({
    input0: ["TENSOR_QUANT8_ASYMM", 0.5, 127],
    output0: ["TENSOR_QUANT8_ASYMM", 0.5, 127],
})

Example({
    input0: [1, 2,
             3, 4,
             5, 6],
    indices: [2, 0,
              1, 0,
              0, 1],
    output0: [5, 6,
             1, 2,
             3, 4,
             1, 2,
             1, 2,
             3, 4],
}, model=model).AddVariations("relaxed", quant8, "int32")
