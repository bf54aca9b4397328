"""Messages every lesson shares: set-up, how a failed check is shown, input validation,
the feedback engine's diagnoses and the attention explorer's labels."""

MESSAGES = {
    "setup_done": {
        "ja": "準備ができました。言語: 日本語 / 計算デバイス: {device} / torch {torch}",
        "ko": "준비가 끝났습니다. 언어: 한국어 / 장치: {device} / torch {torch}",
    },
    "bad_language": {
        "ja": "言語は 'ja' か 'ko' を指定してください（受け取った値：{lang!r}）。",
        "ko": "언어는 'ja' 또는 'ko'로 지정하세요(받은 값: {lang!r}).",
    },
    "probe_outside_grading": {
        "ja": "これは隠しテストの一部で、採点のときだけ動きます（採点する側が、入力を作る乱数のシードを渡します）。",
        "ko": "이것은 숨겨진 테스트의 일부로, 채점할 때만 동작합니다(채점하는 쪽이 입력의 시드를 넘깁니다).",
    },
    "check_failed": {"ja": "チェック不合格", "ko": "검사 실패"},
    "bad_input": {"ja": "入力エラー", "ko": "입력 오류"},
    "hint": {"ja": "ヒント", "ko": "힌트"},
    "also": {"ja": "ほかにも", "ko": "그 밖에도"},
    "hint_copy_no_grad": {
        "ja": "勾配を記録するパラメータ（requires_grad=True）を、copy_ などでインプレースに書き換えようとしています。コピーは with torch.no_grad(): の中で行ってください。",
        "ko": "기울기를 기록하는 파라미터를 제자리에서 바꾸려고 했습니다. 복사는 with torch.no_grad(): 안에서 하세요.",
    },
    "hint_answer_not_int": {
        "ja": "{name} は整数で書いてください（いまは {got}）。数を数える答えなので、float(...) や / を使わずに整数のまま書きます。",
        "ko": "{name}에는 정수를 넣으세요(지금은 {got}). 개수를 세는 답이므로 float(...)나 /를 쓰지 않고 정수 그대로 씁니다.",
    },
    "hint_int_division": {
        "ja": "形状を表す数が float になっています。/ で割ると float になるので、view や reshape、nn.Linear に渡す大きさは // で割ります（例: HD // n_head）。",
        "ko": "모양을 나타내는 수가 float가 되었습니다. /로 나누면 float가 되므로, view나 reshape, nn.Linear에 넘기는 크기는 //로 나눕니다(예: HD // n_head).",
    },
    "hint_split_sizes": {
        "ja": "split に渡した幅の合計が、分ける軸の大きさと合いません。分ける軸（dim=-1 など）と、その軸の並び（view の形、幅の順番）を確かめてください。",
        "ko": "split에 넘긴 폭의 합이 나누는 축의 크기와 맞지 않습니다. 나누는 축(dim=-1 등)과 그 축의 구성(view의 모양, 폭의 순서)을 확인하세요.",
    },
    "hint_view_sizes": {
        "ja": "view や reshape に渡した形の要素数が、元のテンソルの要素数と合いません。各軸の大きさ（B, T, H, ヘッドの幅）を取り違えていないか、渡したテンソルが思っている形か確かめてください。",
        "ko": "view나 reshape에 넘긴 모양의 원소 수가 원래 텐서의 원소 수와 맞지 않습니다. 각 축의 크기(B, T, H, 헤드의 폭)를 혼동하지 않았는지, 넘긴 텐서가 생각한 모양인지 확인하세요.",
    },
    "hint_dim_missing": {
        "ja": "dim を指定していません。ソフトマックスや和は、どの軸についてとるかを dim=-1 のように指定します。",
        "ko": "dim을 지정하지 않았습니다. 소프트맥스나 합은 어느 축에 대해 계산할지를 dim=-1처럼 지정합니다.",
    },
    "hint_dropout_on_scores": {
        "ja": "ドロップアウトがソフトマックスの前のスコアにかかっているようです。ドロップアウトは、ソフトマックスのあとの重みにかけ、そのあとで @ V します。",
        "ko": "드롭아웃이 소프트맥스 전의 점수에 적용된 것 같습니다. 드롭아웃은 소프트맥스를 거친 가중치에 적용하고, 그다음에 @ V를 합니다.",
    },
    "hint_dropout_after_values": {
        "ja": "ドロップアウトが重み @ V の結果（各ヘッドの出力）にかかっているようです。ドロップアウトは、@ V の前に重みにかけます。",
        "ko": "드롭아웃이 가중치 @ V의 결과(각 헤드의 출력)에 적용된 것 같습니다. 드롭아웃은 @ V 전에 가중치에 적용합니다.",
    },
    "hint_dropout_placement": {
        "ja": "train モードの出力が、ソフトマックスのあとの重みに一度だけドロップアウトをかけたときの出力と一致しません。self.dropout は重みに一度だけ、@ V の前にかけます。",
        "ko": "train 모드의 출력이, 소프트맥스를 거친 가중치에 드롭아웃을 한 번만 적용했을 때의 출력과 일치하지 않습니다. self.dropout은 가중치에 한 번만, @ V 전에 적용합니다.",
    },
    "hint_scale_floor": {
        "ja": "スコアを // で割っていませんか。// は切り捨ての割り算で、スコアが整数に丸められます。/ で割ります（Q @ K.transpose(-2, -1) / math.sqrt(d_k)）。",
        "ko": "점수를 //로 나눈 것 같습니다. //는 버림 나눗셈이라 점수가 정수로 내려갑니다. /로 나눕니다(Q @ K.transpose(-2, -1) / math.sqrt(d_k)).",
    },
    "hint_scale_inverted": {
        "ja": "√d_k をスコアで割っていませんか。割られるのはスコアのほうです（Q @ K.transpose(-2, -1) / math.sqrt(d_k)）。",
        "ko": "√d_k를 점수로 나눈 것 같습니다. 나뉘는 쪽은 점수입니다(Q @ K.transpose(-2, -1) / math.sqrt(d_k)).",
    },
    "hint_pair_order": {
        "ja": "{name} は (出力, 重み) の順で返します。いまは (重み, 出力) の順になっています。出力を先にして返してください（たとえば return y, weights）。",
        "ko": "{name}의 반환값은 (출력, 가중치) 순서입니다. 지금은 (가중치, 출력) 순서로 되어 있습니다. 출력을 먼저 반환하세요(예: return y, weights).",
    },
    "hint_earlier_cause": {
        "ja": "この演習は、演習 {n} で書いた {name} を使っています。それが演習 {n} のチェックに合格していないので、ここでの失敗はそこから来ている可能性があります。まずそちらを直してください。",
        "ko": "이 연습 문제는 연습 문제 {n}에서 작성한 코드({name})를 씁니다. 그 코드가 연습 문제 {n}의 검사를 통과하지 못하므로, 여기서의 실패는 거기서 온 것일 수 있습니다. 먼저 그 연습 문제부터 고치세요.",
    },
    "passed": {
        "ja": "✔ {name}: すべてのチェックに合格しました。",
        "ko": "✔ {name}: 모든 검사를 통과했습니다.",
    },
    "not_tensor": {
        "ja": "{name} には torch.Tensor を渡してください（渡されたのは {kind} です）。",
        "ko": "{name}에는 torch.Tensor를 넘겨야 합니다(받은 타입: {kind}).",
    },
    "wrong_rank": {
        "ja": "{name} は {want} 次元のテンソル {layout} を想定していますが、渡されたのは {got} 次元（形状 {shape}）です。",
        "ko": "{name}의 차원 수가 맞지 않습니다. 기대: {want}차원 텐서 {layout} / 실제: {got}차원(모양 {shape})",
    },
    "embed_mismatch": {
        "ja": "入力の最後の軸（埋め込み次元 E）は {want} のはずですが {got} でした（形状 {shape}）。モジュールを作ったときの embed_dim と入力が合っていません。",
        "ko": "입력의 마지막 축(임베딩 차원 E)의 크기가 다릅니다. 기대: {want} / 실제: {got}(모양 {shape}). 모듈을 만들 때 준 embed_dim과 입력이 맞지 않습니다.",
    },
    "qk_dim_mismatch": {
        "ja": "Q と K の最後の軸（d_k）がそろっていません: Q は {dq}、K は {dk} です。内積をとるには同じ次元のベクトルが必要です。",
        "ko": "Q와 K의 마지막 축(d_k)이 맞지 않습니다: Q는 {dq}, K는 {dk}입니다. 내적을 하려면 두 벡터의 차원이 같아야 합니다.",
    },
    "kv_len_mismatch": {
        "ja": "K と V の系列長がそろっていません: K は {tk}、V は {tv} です。キーとバリューは同じトークンから作られるので、個数は同じはずです。",
        "ko": "K와 V의 시퀀스 길이가 맞지 않습니다: K는 {tk}, V는 {tv}입니다. 키와 밸류는 같은 토큰에서 만들어지므로 개수가 같아야 합니다.",
    },
    "batch_mismatch": {
        "ja": "バッチの軸がそろっていません: {shapes}。",
        "ko": "배치 축이 맞지 않습니다: {shapes}.",
    },
    "bad_size": {
        "ja": "{name} には正の整数を指定してください（指定された値：{value!r}）。",
        "ko": "{name}에는 양의 정수를 넣어야 합니다(받은 값: {value!r}).",
    },
    "tokens_mismatch_qk": {
        "ja": "トークンの数（クエリ {n_q} 個、キー {n_k} 個）と行列の大きさ {shape} が合っていません。クエリとキーのトークンが違うときは key_tokens= でキーのトークンを渡してください。",
        "ko": "토큰 수(쿼리 {n_q}개, 키 {n_k}개)와 행렬의 크기(모양 {shape})가 맞지 않습니다. 쿼리와 키의 토큰이 다를 때는 key_tokens=로 키의 토큰을 넘기세요.",
    },
    "error_gloss_unpack": {
        "ja": "{error}（値を {n} 個の変数に分けて受け取ろうとしましたが、分けて受け取る値の個数が {n} 個ではありません。テンソルをこのように受け取ると、最初の軸に沿って分けられます）",
        "ko": "{error}(값을 변수 {n}개에 나누어 받으려 했지만, 나누어 받을 값이 {n}개가 아닙니다. 텐서를 이렇게 받으면 첫 번째 축을 따라 나뉩니다)",
    },
    "error_gloss_device": {
        "ja": "{error}（{a} デバイスのテンソルと {b} デバイスのテンソルを1つの計算で組み合わせようとしました。計算に使うテンソルは、すべて同じデバイスに置く必要があります）",
        "ko": "{error}({a} 장치의 텐서와 {b} 장치의 텐서를 한 계산에서 함께 쓰려 했습니다. 계산에 쓰는 텐서는 모두 같은 장치에 있어야 합니다)",
    },
    "error_gloss_broadcast": {
        "ja": "{error}（軸 {dim} の大きさが、一方のテンソルでは {a}、もう一方では {b} で、そろっていません。2つのテンソルを組み合わせて計算するには、各軸の大きさが同じか、どちらかが 1 でなければなりません）",
        "ko": "{error}(두 텐서의 축 {dim} 크기가 {a}와(과) {b}(으)로 서로 달라서 함께 계산할 수 없습니다. 각 축의 크기가 같거나 한쪽이 1이어야 합니다)",
    },
    "error_gloss_load_size": {
        "ja": "{error}（load_state_dict で {param} の形状が合いません。読み込む値の形状は {got}、モジュールのパラメータの形状は {want} です）",
        "ko": "{error}(load_state_dict에서 {param}의 모양이 맞지 않습니다. 불러오는 값의 모양은 {got}, 모듈 파라미터의 모양은 {want}입니다)",
    },
    "error_gloss_dtype": {
        "ja": "{error}（1つの計算で、データ型の違うテンソルを組み合わせようとしました。Double は float64、Float は float32 です。途中で .float() や .double() を呼んだり、torch.zeros(...) などを dtype= なしで作ったりすると（既定は float32）、データ型が入力と違ってしまいます。新しいテンソルには dtype=x.dtype のように入力のデータ型を指定し、どのテンソルも入力と同じデータ型のまま計算してください）",
        "ko": "{error}(한 계산에서 자료형이 다른 텐서를 함께 쓰려 했습니다. Double은 float64, Float는 float32입니다. 중간에 .float()나 .double()을 호출하거나 torch.zeros(...) 등을 dtype= 없이 만들면(기본값 float32) 자료형이 입력과 달라질 수 있습니다. 새 텐서는 dtype=x.dtype처럼 입력의 자료형을 지정하고, 모든 텐서가 입력과 같은 자료형을 유지하도록 하세요)",
    },
    "error_gloss_inplace_view": {
        "ja": "{error}（エラーに {op} と出ている演算の出力（ビュー）を、/=・*=・名前が _ で終わるメソッドなど、その場で書き換える演算で変えようとしました。split・chunk・unbind のように複数のビューを返す関数の出力と、そこから作ったビューは、勾配を計算するテンソルではその場で書き換えられません。q = q / s のように、新しいテンソルを作る書き方にしてください）",
        "ko": "{error}(split, chunk, unbind처럼 여러 뷰를 반환하는 함수의 결과(오류 메시지의 {op})를 제자리 연산(/=, *=, 이름이 _로 끝나는 메서드)으로 바꾸려 했습니다. 기울기를 계산하는 텐서에서는 이런 뷰를 제자리에서 바꿀 수 없습니다. q = q / s처럼 새 텐서를 만드는 식으로 쓰세요)",
    },
    "raised": {
        "ja": "{name} を呼ぶとエラーになりました: {error}",
        "ko": "{name} 호출 중에 오류가 났습니다: {error}",
    },
    "not_implemented": {
        "ja": "{name} はまだ実装されていません。`raise NotImplementedError()` の行を消して、コードを書いてください。",
        "ko": "{name}: 아직 구현되지 않았습니다. `raise NotImplementedError()` 줄을 지우고 코드를 작성하세요.",
    },
    "returned_not_tensor": {
        "ja": "{name} の戻り値は torch.Tensor のはずですが、{kind} が返ってきました。",
        "ko": "{name}의 반환값은 torch.Tensor여야 합니다(지금은 {kind}).",
    },
    "returned_not_pair": {
        "ja": "{name} は (出力, 重み) の2つを返してください。返ってきたのは {kind} でした。",
        "ko": "{name}의 반환값은 (출력, 가중치) 두 개여야 합니다. 반환된 것은 {kind}입니다.",
    },
    "wrong_ndim": {
        "ja": "{what}の次元数が合いません。{want} 次元 {layout} のはずが、{got} 次元（形状 {shape}）になっています。",
        "ko": "{what}의 차원 수가 맞지 않습니다. 기대: {want}차원 {layout} / 실제: {got}차원(모양 {shape})",
    },
    "wrong_axis": {
        "ja": "{what}の形状が違います。{want} {layout} のはずが {got} になっています。軸 {axis}（{axis_name}）の大きさが {want_n} ではなく {got_n} です。",
        "ko": "{what}의 모양이 다릅니다. 기대: {want} {layout} / 실제: {got}. 축 {axis}({axis_name})의 크기가 기대와 다릅니다(기대 {want_n}, 실제 {got_n}).",
    },
    "swapped_axes": {
        "ja": "軸 {a}（{name_a}）と軸 {b}（{name_b}）が入れ替わっているようです。",
        "ko": "축 {a}({name_a})와 축 {b}({name_b})가 서로 바뀐 것 같습니다.",
    },
    "values_differ": {
        "ja": "{what}の値が正しくありません（最大誤差 {err:.3g}）。",
        "ko": "{what}의 값이 올바르지 않습니다(최대 오차 {err:.3g}).",
    },
    "what_weights": {"ja": "重み", "ko": "가중치"},
    "has_nan": {
        "ja": "{what}に NaN または inf が含まれています。",
        "ko": "{what}에 NaN 또는 inf가 들어 있습니다.",
    },
    "hint_negative_dims": {
        "ja": "軸の番号が範囲の外です。バッチのない2次元の入力でも動くように、transpose(1, 2) ではなく、最後の2軸を指す transpose(-2, -1) のように負の番号で軸を指定してください。",
        "ko": "축 번호가 범위를 벗어났습니다. 배치가 없는 2차원 입력에서도 동작하도록, transpose(1, 2) 대신 마지막 두 축을 가리키는 transpose(-2, -1)처럼 음수 번호로 축을 지정하세요.",
    },
    "hint_transpose_k": {
        "ja": "Q は (…, T_q, d_k)、K は (…, T_k, d_k) です。行列積 Q @ Kᵀ のためには K の最後の2軸を入れ替えて (…, d_k, T_k) にします: K.transpose(-2, -1)。",
        "ko": "Q는 (…, T_q, d_k), K는 (…, T_k, d_k)입니다. 행렬 곱 Q @ Kᵀ를 하려면 K의 마지막 두 축을 바꿔 (…, d_k, T_k)로 만들어야 합니다: K.transpose(-2, -1).",
    },
    "hint_dot_T": {
        "ja": "3次元以上のテンソルに .T を使うと、すべての軸が逆順になります（(B, T, d) → (d, T, B)）。バッチはそのままにして最後の2軸だけを入れ替える K.transpose(-2, -1)（または K.mT）を使いましょう。",
        "ko": "3차원 이상 텐서에 .T를 쓰면 모든 축의 순서가 뒤집힙니다((B, T, d) → (d, T, B)). 배치 축은 그대로 두고 마지막 두 축만 바꾸는 K.transpose(-2, -1)(또는 K.mT)을 쓰세요.",
    },
    "hint_no_scale": {
        "ja": "スケーリングを忘れているようです。QKᵀ を √d_k（キーの次元。この講座のモジュールでは D）で割ってください。割らないと d_k が大きいときに分散が d_k 倍になり、ソフトマックスが飽和します。",
        "ko": "스케일링을 빠뜨린 것 같습니다. QKᵀ를 √d_k(키의 차원. 이 강좌의 모듈에서는 D)로 나누세요. 나누지 않으면 d_k가 클 때 분산이 d_k배가 되어 소프트맥스가 포화합니다.",
    },
    "hint_scale_dk": {
        "ja": "d_k で割っていませんか。割るのは √d_k です（math.sqrt(d_k) または d_k ** 0.5）。d_k で割ると分散は 1 ではなく 1/d_k まで縮みます。",
        "ko": "√d_k가 아니라 d_k로 나눈 것 같습니다. 나눠야 하는 값은 √d_k입니다(math.sqrt(d_k) 또는 d_k ** 0.5). d_k로 나누면 분산이 1이 아니라 1/d_k로 줄어듭니다.",
    },
    "hint_softmax_axis": {
        "ja": "ソフトマックスをかける軸が違います。各クエリ（行）について、キー方向（最後の軸, dim=-1）の和が 1 になるはずです。いまは軸 {axis} の方向に和が 1 になっています。",
        "ko": "소프트맥스를 적용하는 축이 틀렸습니다. 각 쿼리(행)마다 키 방향(마지막 축, dim=-1)의 합이 1이 되어야 합니다. 지금은 축 {axis} 방향의 합이 1입니다.",
    },
    "hint_rows_not_normalised": {
        "ja": "各行の和が 1 になっていません（最後の軸で和をとると {lo:.3g}〜{hi:.3g}）。各行を exp の和（dim=-1, keepdim=True）で割ったか確認してください。",
        "ko": "각 행의 합이 1이 아닙니다(마지막 축으로 더하면 {lo:.3g}~{hi:.3g}). 각 행을 exp의 합(dim=-1, keepdim=True)으로 나눴는지 확인하세요.",
    },
    "hint_w_o_missing": {
        "ja": "出力射影 W_o を忘れていませんか。重み @ V の結果（複数のヘッドなら、つなげたもの）を W_o で埋め込み次元 E に戻して、(B, T, E) にします。",
        "ko": "출력 투영 W_o가 빠진 것 같습니다. 가중치 @ V의 결과(헤드가 여럿이면 이어 붙인 것)를 W_o로 임베딩 차원 E로 되돌려 (B, T, E)로 만들어야 합니다.",
    },
    "hint_layer_shape": {
        "ja": "self.{name} の形状が違います: nn.Linear({want_in}, {want_out}) のはずが nn.Linear({got_in}, {got_out}) です。{why}",
        "ko": "self.{name}의 모양이 다릅니다: nn.Linear({want_in}, {want_out})여야 하는데 nn.Linear({got_in}, {got_out})입니다. {why}",
    },
    "hint_has_bias": {
        "ja": "self.{name} にバイアスがあります。この演習のモジュールでは bias=False にします。",
        "ko": "self.{name}에 편향이 있습니다. 이 연습 문제의 모듈에서는 bias=False로 둡니다.",
    },
    "hint_no_input_check": {
        "ja": "誤った入力 {shape} でもエラーになりませんでした。forward の最初の行 course.expect_tokens(x, self.embed_dim) を消していませんか。",
        "ko": "잘못된 입력 {shape}에도 오류가 나지 않았습니다. forward 첫 줄의 course.expect_tokens(x, self.embed_dim)을 지운 것 같습니다.",
    },
    "hint_missing_transpose": {
        "ja": "view(B, T, H, D) のあとの転置が抜けています。transpose(1, 2) で T と H の軸を入れ替えて、(B, H, T, D) にしてください。",
        "ko": "view(B, T, H, D) 다음의 전치가 빠졌습니다. transpose(1, 2)로 T축과 H축을 바꿔 (B, H, T, D)로 만드세요.",
    },
    "hint_contiguous": {
        "ja": "transpose したテンソルはメモリ上で連続していないので、そのままでは view できません。transpose(1, 2).contiguous().view(B, T, H * D) とするか、reshape を使ってください。",
        "ko": "transpose한 텐서는 메모리에서 연속적이지 않아서 그대로는 view할 수 없습니다. transpose(1, 2).contiguous().view(B, T, H * D)로 쓰거나 reshape를 쓰세요.",
    },
    "gqa_groups_divide": {
        "ja": "n_head は n_kv_head で割り切れる必要があります（今は n_head={h}、n_kv_head={g}）。1 つの KV ヘッドを n_head / n_kv_head 個のヘッドで共有します。",
        "ko": "n_head는 n_kv_head로 나누어떨어져야 합니다(지금 n_head={h}, n_kv_head={g}). KV 헤드 하나를 헤드 n_head / n_kv_head개가 함께 씁니다.",
    },
    "hint_head_dim_divides": {
        "ja": "embed_dim = {e} は n_head = {h} で割り切れないので、head_dim を決められません。割り切れる組み合わせにしてください（head_dim を引数に取るモジュールなら、head_dim を指定してもかまいません）。",
        "ko": "embed_dim = {e}, n_head = {h}: 나누어떨어지지 않아서 head_dim을 정할 수 없습니다. 나누어떨어지는 조합을 쓰세요(head_dim을 인자로 받는 모듈이라면 head_dim을 직접 지정해도 됩니다).",
    },
    "torch_mha_incompatible": {
        "ja": "nn.MultiheadAttention はヘッドの次元を embed_dim // num_heads に固定しているので、n_head × head_dim = embed_dim のときしか重みを移せません（いまは {h} × {d} ≠ {e}）。",
        "ko": "nn.MultiheadAttention은 헤드 차원을 embed_dim // num_heads로 고정하므로 n_head × head_dim = embed_dim일 때만 가중치를 옮길 수 있습니다(지금은 {h} × {d} ≠ {e}).",
    },
    "hint_buffer_missing": {
        "ja": "self.causal がバッファとして登録されていません。__init__ で self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False) のように登録してください（第3回では causal_mask(max_len) でも作れます）。",
        "ko": "self.causal이 버퍼로 등록되어 있지 않습니다. __init__에서 self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)처럼 등록하세요(3강에서는 causal_mask(max_len)로 만들어도 됩니다).",
    },
    "module_meta_device": {
        "ja": "モジュールと x を meta デバイス（GPU の代わり）に置いて呼ぶと、出力が {device} に出てきました。出力は入力と同じデバイスに置かれるはずです。",
        "ko": "모듈과 x를 meta 장치(GPU 대신)에 두고 호출했더니 출력이 {device}에 나왔습니다. 출력은 입력과 같은 장치에 있어야 합니다.",
    },
    "hint_module_device": {
        "ja": "forward の中でマスク（または途中のテンソル）を CPU に作っています。torch.ones(T, T) のように device を指定せずに作ると CPU に置かれ、GPU 上のスコアと組み合わせたときにエラーになります。因果マスクは __init__ で register_buffer に登録すれば、model.to(device) でモジュールと一緒に移ります。forward の中で作るテンソルには device=x.device を渡してください。",
        "ko": "forward 안에서 마스크(또는 중간에 만든 텐서)를 CPU에 만들었습니다. torch.ones(T, T)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 점수와 함께 쓰면 오류가 납니다. 인과 마스크는 __init__에서 register_buffer로 등록하면 model.to(device)로 모듈과 함께 옮겨집니다. forward 안에서 만드는 텐서에는 device=x.device를 넘기세요.",
    },
    "stage_scores": {"ja": "QKᵀ", "ko": "QKᵀ"},
    "stage_scaled": {"ja": "÷√D", "ko": "÷√D"},
    "stage_masked": {"ja": "＋マスク", "ko": "+마스크"},
    "stage_softmax": {"ja": "ソフトマックス", "ko": "소프트맥스"},
    "widget_stage": {"ja": "段階", "ko": "단계"},
    "widget_causal": {"ja": "因果マスク", "ko": "인과 마스크"},
    "widget_padding": {"ja": "パディングマスク", "ko": "패딩 마스크"},
    "fig_stage_title": {"ja": "{stage}（× はマスクされた位置）", "ko": "{stage}(×는 가려진 위치)"},
    "layer_missing_bias": {
        "ja": "{name} にバイアスがありません。このモジュールの nn.Linear はすべてバイアス付きです（nn.Linear の既定 bias=True のままにしてください）。",
        "ko": "{name}에 편향이 없습니다. 이 모듈의 nn.Linear는 모두 편향이 있습니다(nn.Linear의 기본값 bias=True를 그대로 두세요).",
    },
    "answer_missing": {
        "ja": "{name} にまだ値が入っていません。数値を代入してください。",
        "ko": "{name}에 아직 값이 없습니다. 숫자를 대입하세요.",
    },
    "answer_not_number": {
        "ja": "{name} には Python の int か float を入れてください（いまは {kind}）。NumPy の数（numpy.int64 など）は int(...) や float(...) で Python の数に変換できます。",
        "ko": "{name}에는 Python의 int나 float를 넣으세요(지금은 {kind}). NumPy 수(numpy.int64 등)는 int(...)나 float(...)로 감싸면 Python 수가 됩니다.",
    },
    "count_module_differs_text": {
        "ja": "あなたの {module} のパラメータ数は、本文のモジュールの数と一致しません。そのモジュールを作った演習（層の形・バイアスの有無）を見直してください。",
        "ko": "여러분의 {module}의 파라미터 수는 본문의 모듈과 일치하지 않습니다. 그 모듈을 만든 연습 문제(층의 모양, 편향 유무)를 다시 확인하세요.",
    },
    "answer_wrong": {
        "ja": "{name} の値が正しくありません。",
        "ko": "{name}의 값이 올바르지 않습니다.",
    },
    "answer_not_int_kind": {
        "ja": "{name} には Python の整数（int）を入れてください（いまは {kind}）。数を数える答えなので、'12' のような文字列や 12.0 のような float ではなく、12 のような整数で書きます。NumPy の数（numpy.int64 など）は int(...) で Python の整数に変換できます。",
        "ko": "{name}에는 Python 정수(int)를 넣으세요(지금은 {kind}). 개수를 세는 답이므로 '12' 같은 문자열이나 12.0 같은 float가 아니라 12처럼 정수로 씁니다. NumPy 수(numpy.int64 등)는 int(...)로 감싸면 Python 정수가 됩니다.",
    },
    "answer_not_finite": {
        "ja": "{name} が有限の数ではありません（いまは {got}）。inf や nan にならないように計算してください。",
        "ko": "{name}의 값이 유한한 수가 아닙니다(지금은 {got}). inf나 nan이 나오지 않게 계산하세요.",
    },
    "hint_causal_slice": {
        "ja": "マスクとスコアの大きさが合いません。self.causal は (max_len, max_len) = ({max_len}, {max_len}) で作ってありますが、いまのスコアは (…, T, T) = (…, {T}, {T}) です。使うときに self.causal[:T, :T] で左上の T × T を切り出してください（K を転置する問題ではありません）。",
        "ko": "마스크와 점수의 크기가 맞지 않습니다. self.causal은 (max_len, max_len) = ({max_len}, {max_len})으로 만들어 두었지만 지금 점수는 (…, T, T) = (…, {T}, {T})입니다. 쓸 때 self.causal[:T, :T]로 왼쪽 위의 T × T를 잘라 내세요(K를 전치하는 문제가 아닙니다).",
    },
    "hint_dropout_eval_sdpa": {
        "ja": "use_sdpa=True の経路で、eval モードなのにドロップアウトがかかっています（出力が呼ぶたびに変わるか、ドロップアウトなしの結果と一致しません）。scaled_dot_product_attention はモジュールではなく関数なので train/eval のモードを知らず、dropout_p には train モードのときだけ self.dropout.p を、eval では 0.0 を渡します（self.dropout.p if self.training else 0.0）。",
        "ko": "use_sdpa=True 경로에서 eval 모드인데도 드롭아웃이 적용됩니다(출력이 호출할 때마다 바뀌거나, 드롭아웃을 뺀 결과와 다릅니다). scaled_dot_product_attention은 모듈이 아닌 함수라서 train/eval 모드를 알 수 없으므로 dropout_p에는 train 모드일 때만 self.dropout.p를, eval에서는 0.0을 넘겨야 합니다(self.dropout.p if self.training else 0.0).",
    },
    "hint_dropout_eval": {
        "ja": "eval モードなのに、出力が呼ぶたびに変わるか、ドロップアウトなしの結果と一致しません。nn.Dropout を使えば eval() で自動的に止まります（F.dropout を使うなら training=self.training を渡してください）。",
        "ko": "eval 모드인데도 출력이 호출할 때마다 바뀌거나, 드롭아웃을 뺀 결과와 다릅니다. nn.Dropout은 eval()에서 자동으로 꺼집니다(F.dropout을 쓴다면 training=self.training을 넘기세요).",
    },
    "hint_dropout_train": {
        "ja": "train モードでドロップアウトがかかっていません。self.dropout を重みに適用してください。",
        "ko": "train 모드에서 드롭아웃이 적용되지 않았습니다. self.dropout을 가중치에 적용하세요.",
    },
    "hint_dropout_output": {
        "ja": "出力（{layer} のあと）にもドロップアウトをかけています（train モードの出力に、ちょうど 0 の要素がまじっています）。このモジュールのドロップアウトは self.dropout の1つだけで、ソフトマックスのあとの重みにかけます。出力側のドロップアウト（Hugging Face の GPT-2 の resid_dropout にあたるもの）は付けません。",
        "ko": "출력({layer} 뒤)에도 드롭아웃을 적용했습니다(train 모드 출력에 정확히 0인 원소가 섞여 있습니다). 이 모듈의 드롭아웃은 self.dropout 하나뿐이고, 소프트맥스 뒤의 가중치에 적용합니다. 출력 쪽 드롭아웃(Hugging Face GPT-2의 resid_dropout에 해당하는 것)은 넣지 않습니다.",
    },
    "hint_weights_after_dropout": {
        "ja": "返している重みがドロップアウト後のものです（各行の和が 1 になりません）。図や確認のために、ドロップアウト前の重みを返してください。",
        "ko": "반환한 가중치가 드롭아웃을 거친 것입니다(각 행의 합이 1이 아닙니다). 그림과 확인을 위해 드롭아웃 전의 가중치를 반환하세요.",
    },
    "hint_scale_head_dim": {
        "ja": "割る数が違います。スケーリングに使うのは1つのヘッドの次元 D（head_dim）の平方根 √D です。√(H·D) や √E ではありません。",
        "ko": "나누는 값이 틀렸습니다. 스케일링에는 헤드 하나의 차원 D(head_dim)의 제곱근 √D를 씁니다. √(H·D)나 √E가 아닙니다.",
    },

    "tensor_subclass": {
        "ja": "{name} が torch.Tensor（または tuple や list）のサブクラスを返しました。ふつうの torch.Tensor と、ふつうの tuple で返してください。",
        "ko": "{name}의 반환값이 torch.Tensor(또는 tuple이나 list)의 하위 클래스입니다. 일반 torch.Tensor와 일반 tuple로 반환하세요.",
    },
    "hint_from_scratch_path": {
        "ja": "{name} は、{path} のときの経路を除いて自分で組み立てる演習です。F.scaled_dot_product_attention を呼んでよいのは {path} の経路だけです。もう一方の経路では、行列積とソフトマックスで書いてください。別名を付けても、torch.ops や torch._C から呼んでも同じ関数なので、やはり止められます。",
        "ko": "{name}: {path}일 때의 경로를 제외하면 직접 구현 연습 문제입니다. F.scaled_dot_product_attention은 {path} 경로에서만 호출할 수 있습니다. 다른 경로에서는 행렬 곱과 소프트맥스로 작성하세요. 다른 이름을 붙이거나 torch.ops, torch._C를 거쳐 불러도 같은 함수이므로 역시 막힙니다.",
    },
    "hint_from_scratch": {
        "ja": "{name} は自分で組み立てる演習です。F.scaled_dot_product_attention や nn.MultiheadAttention を呼ばずに、行列積とソフトマックスで書いてください。別名を付けても、torch.ops や torch._C から呼んでも同じ関数なので、やはり止められます。",
        "ko": "{name}: 직접 구현 연습 문제입니다. F.scaled_dot_product_attention이나 nn.MultiheadAttention을 부르지 말고 행렬 곱과 소프트맥스로 작성하세요. 다른 이름을 붙이거나 torch.ops, torch._C를 거쳐 불러도 같은 함수이므로 역시 막힙니다.",
    },
    "hint_softmax_by_hand": {
        "ja": "{name} はソフトマックスを自分で書く演習です。torch.softmax や F.softmax、Tensor.softmax を使わずに、各行の最大値を引いてから torch.exp と sum で書いてください。",
        "ko": "{name}: 소프트맥스도 직접 작성해야 하는 연습 문제입니다. torch.softmax, F.softmax, Tensor.softmax를 쓰지 말고, 각 행의 최댓값을 뺀 다음 torch.exp와 sum으로 작성하세요.",
    },
    "hint_concat_by_hand": {
        "ja": "{name} ではキャッシュを torch.cat でつなぎません。torch.cat や torch.stack（torch.concat、hstack なども同じです）は新しいテンソルを確保して中身を丸ごとコピーするので、事前に確保したバッファを使う意味がなくなります。k_buf[:, :, T_past:T_past + T_new] = k のようにバッファに書き込み、書いたところまで切り出して使ってください。",
        "ko": "{name}에서는 캐시를 torch.cat으로 이어 붙이지 않습니다. torch.cat이나 torch.stack(torch.concat, hstack 등도 마찬가지입니다)은 새 텐서를 확보해 내용을 통째로 복사하므로, 미리 확보한 버퍼를 쓰는 의미가 없어집니다. k_buf[:, :, T_past:T_past + T_new] = k처럼 버퍼에 쓰고, 쓴 곳까지 잘라서 쓰세요.",
    },
    "by_hand_policy": {
        "ja": "{name} のコードをたどると、{where}の {line} 行目 `{code}` で {what} が使われています。{why}",
        "ko": "{name}의 코드는 {where}의 {line}번 줄 `{code}`에서 {what}에 도달합니다. {why}",
    },
    "by_hand_tamper": {
        "ja": "{where}の {line} 行目 `{code}` は、手で書く演習の決まりを守らせるしくみを、演習の外から無効にできるコードです。{why}。採点ではそのコードが何をしたかを確かめられないので、このコードがノートブックに残っていると、手で書く演習はすべて 0 点になります（セルを消しても、カーネルにはまだ効いています）。",
        "ko": "{where}의 {line}번 줄(`{code}`)은 직접 구현 연습 문제의 규칙을 연습 문제 밖에서 무력화할 수 있는 코드입니다. {why}. 채점에서 그 코드가 무엇을 했는지 확인할 수 없으므로, 이 코드가 노트북에 남아 있으면 직접 구현 연습 문제는 모두 0점이 됩니다(셀을 지워도 커널에는 아직 영향이 남아 있습니다).",
    },
    "by_hand_threads": {
        "ja": "{name} を実行している間、自分で起動したスレッドやプロセス（{what}）が動いていました。手で書く演習のコードは、ほかのスレッドやプロセスが動いていない状態で実行する決まりです。",
        "ko": "{name} 실행 중에 직접 시작한 스레드나 프로세스({what})가 돌고 있었습니다. 직접 구현 연습 문제의 코드는 다른 스레드나 프로세스에 계산을 맡기지 않고 실행해야 합니다.",
    },
    "hint_by_hand_threads": {
        "ja": "スレッドやプロセスを止めてから（カーネルを再起動すれば止まります）、もう一度実行してください。それを起動したセルは、消すか、実行しないようにします。",
        "ko": "스레드나 프로세스를 멈추거나(커널을 다시 시작하면 멈춥니다), 그것을 시작한 셀을 지운 다음 다시 실행하세요.",
    },
    "hint_by_hand_reach": {
        "ja": "その行を、この演習で使えるものだけで書き直すか、この演習のコードが呼び出さないセルに移してください。",
        "ko": "그 줄을 이 연습 문제에서 쓸 수 있는 것만으로 다시 쓰거나, 이 연습 문제에서 호출하지 않는 셀로 옮기세요.",
    },
    "hint_by_hand_tamper": {
        "ja": "そのコードを消して、カーネルを再起動してからすべてのセルを実行し直してください。",
        "ko": "그 코드를 지우고, 커널을 다시 시작한 다음 모든 셀을 다시 실행하세요.",
    },
    "policy_exercise_cell": {"ja": "演習 {n} のセル", "ko": "연습 문제 {n} 셀"},
    "policy_cell": {"ja": "{n} 番目のコードセル", "ko": "{n}번째 코드 셀"},
    "policy_history_cell": {"ja": "In [{n}] のセル", "ko": "In [{n}] 셀"},
    "reach_attention": {"ja": "これはライブラリのアテンションです。", "ko": "이것은 라이브러리가 제공하는 어텐션입니다."},
    "reach_softmax": {
        "ja": "これはライブラリのソフトマックスです。この演習では、ソフトマックスも自分で書きます。",
        "ko": "이것은 라이브러리가 제공하는 소프트맥스입니다. 이 연습 문제에서는 소프트맥스를 직접 작성합니다.",
    },
    "reach_concat": {
        "ja": "これは torch.cat と同じように、テンソルをつなぐたびに新しいテンソルを確保する関数です。",
        "ko": "이것은 텐서를 이어 붙이는 함수(torch.cat 등)로, 새 텐서를 확보해 내용을 복사합니다.",
    },
    "reach_course": {
        "ja": "これは講座のチェックや採点に使う内部モジュールで、答えが入っています。",
        "ko": "이것은 강좌의 검사와 채점을 위한 내부 모듈로, 답을 담고 있습니다.",
    },
    "reach_outside": {
        "ja": "手で書く演習で使えるのは、テンソルの演算（torch、torch.nn、torch.nn.functional、torch.linalg など）、math や copy のような Python の基本的なモジュール、講座が用意した関数、自分で書いたコードだけです。これはそのどれにも当たりません。",
        "ko": "직접 구현 연습 문제에서 쓸 수 있는 것은 텐서 연산(torch, torch.nn, torch.nn.functional, torch.linalg 등), math나 copy 같은 Python의 간단한 모듈, 강좌가 제공하는 함수, 직접 작성한 코드뿐입니다. 이것은 그중 어디에도 해당하지 않습니다.",
    },
    "reach_dynamic": {
        "ja": "名前を実行時に組み立てて属性を取り出しているため、何を使っているのかがコードから読み取れません。",
        "ko": "실행 중에 만든 이름으로 속성을 가져오므로, 무엇을 쓰는지 코드만 읽어서는 알 수 없습니다.",
    },
    "tamper_patch": {"ja": "torch や講座など、自分で書いたものではないモジュールやクラスの属性を書き換えています", "ko": "torch나 강좌의 모듈 또는 클래스의 속성을 바꾸고 있습니다"},
    "tamper_insides": {
        "ja": "Python の内部（フレーム、クロージャ、sys.modules、プロファイラなど）に触れています",
        "ko": "Python 내부(프레임, 클로저, sys.modules, 프로파일러 등)를 건드리고 있습니다",
    },
    "tamper_course": {
        "ja": "講座の内部（チェックや隠しテストのしくみ、手で書く演習のしくみ）に触れています",
        "ko": "강좌 내부(검사와 숨겨진 테스트를 실행하는 코드, 직접 구현 연습 문제의 규칙을 확인하는 코드)를 건드리고 있습니다",
    },
    "tamper_torch": {
        "ja": "torch の内部のしくみ（torch._C、torch.library、torch.overrides など）に触れています",
        "ko": "torch 내부(torch._C, torch.library, torch.overrides 등)를 건드리고 있습니다",
    },
    "tamper_code": {
        "ja": "採点のときに中身を読めないコードを実行しています（exec、eval、%run、pickle、自分で作ったファイルからの import など）",
        "ko": "채점에서 읽을 수 없는 코드(exec, eval, %run, pickle, 직접 만든 파일 import 등)를 실행하고 있습니다",
    },
    "by_hand_refused": {
        "ja": "{name} の中で {what} が呼ばれました。この演習は手で書く演習です。",
        "ko": "{name} 안에서 호출된 함수: {what}. 이 연습 문제는 직접 구현 연습 문제입니다.",
    },
    "concat_refused": {
        "ja": "{name} の中で {what} が呼ばれました。この演習では、キャッシュをつながずにバッファに書き込みます。",
        "ko": "{name} 안에서 호출된 함수: {what}. 이 연습 문제에서는 캐시를 이어 붙이지 않고 버퍼에 씁니다.",
    },
    "by_hand_note": {
        "ja": "**手で書く演習**：この演習のコードと、そこから呼び出す自分のコードで使えるのは、テンソルの演算（`torch`、`torch.nn`、`torch.nn.functional`、`torch.linalg` など）、`math` のような Python の基本的なモジュール、講座が用意した関数（`course.expect_qkv` など）、自分で書いたコードです。ライブラリのアテンション（`F.scaled_dot_product_attention`、`nn.MultiheadAttention`、`flex_attention` など。別名を付けても同じです）やスレッド・ファイル・`torch.jit` などは使えません。\n\nこれらを使うと、チェックでも採点でもこの演習は不合格になります。この演習のコードが呼び出さないセル（図を保存する、`inspect` で調べる、時間を測る、など）では、何を使ってもかまいません。ただし、講座や torch のモジュールを書き換えること、Python の内部（フレームなど）に触れること、`exec` を使うことは、どのセルでも禁止です。どれか 1 つでもあると、採点ではこのノートブックの手で書く演習がすべて 0 点になります。",
        "ko": "**직접 구현 연습 문제**: 이 연습 문제의 코드와, 그 코드가 호출하는 직접 작성한 코드에서 쓸 수 있는 것은 텐서 연산(`torch`, `torch.nn`, `torch.nn.functional`, `torch.linalg` 등), `math` 같은 Python의 간단한 모듈, 강좌가 제공하는 함수(`course.expect_qkv` 등), 직접 작성한 코드뿐입니다. 라이브러리가 제공하는 어텐션(`F.scaled_dot_product_attention`, `nn.MultiheadAttention`, `flex_attention` 등. 다른 이름을 붙여도 마찬가지입니다)이나 스레드, 파일, `torch.jit` 등은 쓸 수 없고, 쓰면 검사에서도 채점에서도 이 연습 문제는 불합격입니다.\n\n이 연습 문제에서 호출하지 않는 셀(그림 저장, `inspect`로 살펴보기, 시간 재기 등)에서는 무엇을 써도 됩니다. 다만 강좌나 torch의 모듈을 바꾸는 코드, Python 내부(프레임 등)를 건드리는 코드, `exec` 호출은 어느 셀에서도 쓸 수 없으며, 쓰면 채점에서 이 노트북의 직접 구현 연습 문제가 모두 0점이 됩니다.",
    },
    "by_hand_note_concat": {
        "ja": "**torch.cat を使わない演習**：この演習のコード（と、そこから呼び出す自分のコード）では、`torch.cat` などのテンソルをつなぐ関数（`torch.concat`、`torch.stack`、`torch.hstack` など。別名を付けても同じです）は使えません。使うと、チェックでも採点でもこの演習は不合格になります。ほかに使えるものと、どのセルでも使えないものは、手で書く演習と同じです。",
        "ko": "**torch.cat을 쓰지 않는 연습 문제**: 이 연습 문제의 코드와, 그 코드가 호출하는 직접 작성한 코드에서는 `torch.cat`이나 그와 비슷한 함수(`torch.concat`, `torch.stack`, `torch.hstack` 등. 다른 이름을 붙여도 마찬가지입니다)를 쓸 수 없습니다. 쓰면 검사에서도 채점에서도 이 연습 문제는 불합격입니다. 그 밖에 쓸 수 있는 것과 어느 셀에서도 쓸 수 없는 것은 직접 구현 연습 문제와 같습니다.",
    },
    "by_hand_note_again": {
        "ja": "**手で書く演習**：この回の最初の手で書く演習に付けた決まりと同じです（PyTorch などに用意されているアテンションの関数も、講座のチェック用のモジュールも使えません）。",
        "ko": "**직접 구현 연습 문제**: 규칙은 이 강에서 처음 나온 직접 구현 연습 문제에 적어 둔 것과 같습니다(PyTorch 등이 제공하는 어텐션 함수도, 강좌의 검사용 모듈도 호출할 수 없습니다).",
    },
    "by_hand_note_concat_again": {
        "ja": "**torch.cat を使わない演習**：この回で最初に `torch.cat` を禁じた演習に付けた決まりと同じです（`torch.cat` や同じ働きをする関数も、講座のチェック用のモジュールも使えません）。",
        "ko": "**torch.cat을 쓰지 않는 연습 문제**: 규칙은 이 강에서 처음 torch.cat을 금지한 연습 문제에 적어 둔 것과 같습니다(`torch.cat`이나 그와 비슷한 함수도, 강좌의 검사용 모듈도 호출할 수 없습니다).",
    },
    "by_hand_note_softmax": {
        "ja": "この演習では、`torch.softmax` などのソフトマックス関数も使えません。",
        "ko": "이 연습 문제에서는 `torch.softmax` 같은 소프트맥스 함수도 쓸 수 없습니다.",
    },
    "by_hand_note_library_path": {
        "ja": "ただし `{path}` のときの経路だけは、ライブラリを呼ぶための経路なので例外です。",
        "ko": "단, `{path}`일 때의 경로는 라이브러리를 부르기 위한 경로이므로 예외입니다.",
    },
    "hint_cat_dim": {
        "ja": "torch.cat でつなぐテンソルは、つなぐ軸以外の大きさがそろっている必要があります。どの軸でつなぐか（dim=）を確かめてください。KV キャッシュなら系列の軸 dim=2 です。",
        "ko": "torch.cat으로 이어 붙이는 텐서들은 이어 붙이는 축을 뺀 나머지 축의 크기가 같아야 합니다. 어느 축으로 이어 붙이는지(dim=) 확인하세요. KV 캐시라면 시퀀스 축 dim=2입니다.",
    },
    "hint_unpack_tensor": {
        "ja": "左辺の変数の数（a, b = … なら2つ）と、右辺から取り出される値の数が合いません。右辺がテンソルだと、最初の軸（バッチ）に沿って分けられます。組を返す呼び出し（split や rope など）が抜けていないか確かめてください。B, T, E = x.shape のように形状を受け取るところなら、入力の次元の数が合っているかも見てください。",
        "ko": "좌변의 변수 개수(a, b = …라면 2개)와 우변에서 나오는 값의 개수가 다릅니다. 우변이 텐서이면 첫 번째 축(배치)을 따라 나뉩니다. 여러 값을 반환하는 호출(split, rope 등)이 빠지지 않았는지, 모양을 받는 곳(B, T, E = x.shape)이라면 입력의 차원 수가 맞는지 확인하세요.",
    },
    "hint_list_not_tensor": {
        "ja": "テンソルが来るべきところに list か tuple が渡されています。[a, b] と並べただけでは1つのテンソルにはなりません（つなぐなら torch.cat を使います）。split の結果や、(c, k_R) のようなキャッシュの組は tuple なので、要素を取り出してから使ってください。",
        "ko": "텐서가 와야 할 자리에 list나 tuple이 왔습니다. [a, b]처럼 대괄호로 묶기만 해서는 텐서 하나가 되지 않습니다(이어 붙이려면 torch.cat을 쓰세요). split의 결과나 (c, k_R) 같은 캐시 쌍은 tuple이므로 원소를 꺼내서 쓰세요.",
    },
    "hint_super_init": {
        "ja": "__init__ の最初で super().__init__() を呼んでいません。nn.Module は、super().__init__() のあとでないと層（nn.Linear など）やバッファを属性に持てません。",
        "ko": "__init__ 첫머리에서 super().__init__()를 호출하지 않았습니다. nn.Module은 super().__init__()를 호출한 뒤에야 층(nn.Linear 등)이나 버퍼를 속성으로 가질 수 있습니다.",
    },
    "hint_module_attributes": {
        "ja": "forward で使う属性（self.embed_dim、self.n_head、self.head_dim など）のどれかが __init__ で設定されていません。エラーに出ている名前の属性を __init__ で設定しているか、ほかの属性と取り違えていないか確かめてください。",
        "ko": "forward에서 쓰는 속성(self.embed_dim, self.n_head, self.head_dim 등) 중 하나가 __init__에서 설정되지 않았습니다. 오류에 나온 이름의 속성을 __init__에서 설정했는지, 다른 속성과 뒤바뀌지 않았는지 확인하세요.",
    },
    "hint_module_input_checks": {
        "ja": "正しい入力を渡したのに、course.expect_size や course.expect_tokens がエラーを出しました。引数の順番（値やテンソルが先、名前や埋め込み次元があと）と、__init__ で設定した属性（self.embed_dim、self.n_head、self.head_dim）を取り違えていないか確かめてください。",
        "ko": "올바른 입력을 넣었는데 course.expect_size나 course.expect_tokens에서 오류가 났습니다. 인자의 순서(값이나 텐서가 먼저, 이름이나 임베딩 차원이 나중)와 __init__에서 설정한 속성(self.embed_dim, self.n_head, self.head_dim)이 뒤바뀌지 않았는지 확인하세요.",
    },
    "hint_register_buffer_args": {
        "ja": "register_buffer の引数は、名前が先でテンソルがあとです：self.register_buffer(\"causal\", テンソル, persistent=False)。",
        "ko": "register_buffer의 인자는 이름이 먼저이고 텐서가 나중입니다: self.register_buffer(\"causal\", 텐서, persistent=False).",
    },
    "hint_not_a_tensor_method": {
        "ja": "テンソルではないもの（層をまとめたモジュールなど）に対して、view や split などのテンソルのメソッドを呼んだか、[ ] で要素を取り出そうとしています。まず層を呼び出してテンソルを得てから（mla.q_proj(x_new) など）、そのテンソルに対して使ってください。",
        "ko": "텐서가 아닌 객체(층을 묶은 모듈 등)에 view나 split 같은 텐서 메서드를 쓰거나 [ ]로 인덱싱했습니다. 먼저 층을 호출해 텐서를 얻고(mla.q_proj(x_new) 등) 그 텐서에 메서드를 쓰세요.",
    },
    "hint_arange_bounds": {
        "ja": "torch.arange(start, end) の end が start より小さくなっています。引数の順番を逆にしたか、+ と − を取り違えていませんか。新しいトークンの位置は torch.arange(最初の位置, 最初の位置 + T_new) です。",
        "ko": "torch.arange(start, end)에서 end가 start보다 작습니다. 인자 순서가 바뀌었거나 +와 −를 혼동했을 수 있습니다. 새 토큰의 위치는 torch.arange(첫 위치, 첫 위치 + T_new)입니다.",
    },
    "hint_invert_needs_bool": {
        "ja": "~ は bool（または整数）のテンソルに使う演算子で、float のテンソルには使えません。マスクは torch.ones(…, dtype=torch.bool) のように bool 型で作ってください（dtype を省くと float になります）。",
        "ko": "~ 연산자는 bool(또는 정수) 텐서에 쓰는 연산자라서 float 텐서에는 쓸 수 없습니다. 마스크는 torch.ones(…, dtype=torch.bool)처럼 bool로 만드세요(dtype을 생략하면 float 텐서가 됩니다).",
    },
    "hint_masked_fill_order": {
        "ja": "masked_fill の引数の順番が逆です。scores.masked_fill(~keep, float(\"-inf\")) のように、マスクを先に、埋める値をあとに渡します。",
        "ko": "masked_fill의 인자 순서가 반대입니다. scores.masked_fill(~keep, float(\"-inf\"))처럼 마스크를 먼저, 채울 값을 나중에 넘기세요.",
    },
    "cpu_name": {"ja": "CPU（論理コア数 {cores}、PyTorch のスレッド数 {threads}）", "ko": "CPU(논리 코어 {cores}개, PyTorch 스레드 {threads}개)"},
    "fig_weights_title": {
        "ja": "アテンションの重み（温度 τ = {tau:.2f}{scaled}）",
        "ko": "어텐션 가중치(온도 τ = {tau:.2f}{scaled})",
    },
    "fig_scaled_suffix": {"ja": "、√d_k で割る", "ko": ", √d_k로 나눔"},
    "fig_unscaled_suffix": {"ja": "、割らない", "ko": ", 나누지 않음"},
    "fig_key_axis": {
        "ja": "キー（見られる側）",
        "ko": "키(참조되는 쪽)",
    },
    "fig_query_axis": {"ja": "クエリ（見る側）", "ko": "쿼리(보는 쪽)"},
    "fig_entropy_title": {"ja": "各行のエントロピー", "ko": "행별 엔트로피"},
    "fig_entropy_axis": {"ja": "エントロピー [nat]", "ko": "엔트로피 [nat]"},
    "fig_entropy_max": {"ja": "マスクがないときの最大 log T = {v:.2f}", "ko": "마스크가 없을 때의 최대 log T = {v:.2f}"},
    "fig_head": {"ja": "ヘッド {h}", "ko": "헤드 {h}"},
    "fig_head_entropy_title": {"ja": "ヘッドごとの平均エントロピー", "ko": "헤드별 평균 엔트로피"},
    "widget_head": {"ja": "ヘッド", "ko": "헤드"},
    "widget_temperature": {"ja": "温度 τ", "ko": "온도 τ"},
    "widget_scaled": {"ja": "√d_k で割る", "ko": "√d_k로 나누기"},
    "widget_caption": {
        "ja": "τ を小さくすると重みが1か所に集まり（飽和）、大きくすると一様に近づきます。エントロピーは重みがどれだけ広がっているかの目安で、0 なら1か所だけ、見られるキー n 個に均等なら log n です（マスクがなければ log T、因果マスクでは位置 t の行で log(t+1)）。「クエリ」で1つの行を棒グラフに、「比べるヘッド」で2つのヘッドの差を表示します。",
        "ko": "τ를 작게 하면 가중치가 한 곳에 몰리고(포화), 크게 하면 고르게 퍼집니다. 엔트로피는 가중치가 얼마나 퍼져 있는지를 나타내며, 0이면 한 곳만 보고, 볼 수 있는 키 n개를 고르게 보면 log n입니다(마스크가 없으면 log T, 인과 마스크가 있으면 위치 t 행에서 log(t+1)). '쿼리'를 고르면 그 행을 막대그래프로, '비교할 헤드'를 고르면 두 헤드의 차이를 보여 줍니다.",
    },
    "widget_layer": {"ja": "層", "ko": "층"},
    "fig_layer": {"ja": "層 {l}", "ko": "층 {l}"},
    "explorer_layer_names": {
        "ja": "layer_names には、重ねた {n} 枚のマップに1つずつ名前を渡してください（いまは {got} 個）。",
        "ko": "layer_names에는 겹친 맵 {n}장에 하나씩 이름을 넘겨야 합니다(지금은 {got}개).",
    },
    "widget_query": {"ja": "クエリ", "ko": "쿼리"},
    "widget_compare": {"ja": "比べるヘッド", "ko": "비교할 헤드"},
    "widget_none": {"ja": "（なし）", "ko": "(없음)"},
    "fig_weight_axis": {"ja": "重み", "ko": "가중치"},
    "fig_query_title": {
        "ja": "クエリ「{token}」の重み（エントロピー {h:.2f} nat、マスクがないときの最大 {max:.2f}）",
        "ko": "쿼리 '{token}'의 가중치(엔트로피 {h:.2f} nat, 마스크가 없을 때의 최대 {max:.2f})",
    },
    "fig_diff_title": {
        "ja": "ヘッド {a} − ヘッド {b}（赤: ヘッド {a} のほうが強く見る）",
        "ko": "헤드 {a} − 헤드 {b}(빨강: 헤드 {a} 쪽이 더 강하게 보는 곳)",
    },
    "explorer_no_attention": {
        "ja": "このモデルにはアテンション層（c_attn と n_head を持つモジュール）が見つかりません。",
        "ko": "이 모델에서 어텐션 층(c_attn과 n_head를 가진 모듈)을 찾지 못했습니다.",
    },
    "explorer_plain": {
        "ja": "アテンションエクスプローラ（{l} 層、ヘッド {h} 個、トークン {t} 個）",
        "ko": "어텐션 탐색기(층 {l}개, 헤드 {h}개, 토큰 {t}개)",
    },
    # --- diagrams (attn_course/diagrams.py, assets/) ----------------------------
    "diagram_head_split_title": {"ja": "ヘッドへの分割：(B, T, H·D) → (B, H, T, D)", "ko": "헤드로 나누기: (B, T, H·D) → (B, H, T, D)"},
    "diagram_x_layout": {"ja": "x: (B, T, H·D)", "ko": "x: (B, T, H·D)"},
    "diagram_view_layout": {"ja": "view 後: (B, T, H, D)", "ko": "view 후: (B, T, H, D)"},
    "diagram_transpose_layout": {
        "ja": "transpose 後: (B, H, T, D)、ヘッドごとに T × D の行列が1つずつ",
        "ko": "transpose 후: (B, H, T, D), 헤드마다 T × D 행렬이 하나씩",
    },
    "diagram_q": {"ja": "Q（E 列）", "ko": "Q(E열)"},
    "diagram_k": {"ja": "K（E 列）", "ko": "K(E열)"},
    "diagram_v": {"ja": "V（E 列）", "ko": "V(E열)"},
    "diagram_c_attn_output": {"ja": "c_attn の出力：3E 列", "ko": "c_attn의 출력: 3E열"},
    "diagram_fused_heads_note": {
        "ja": "まず split(E) で Q・K・V に分け、それぞれをヘッド 0, 1, 2 の D 列ずつに分けます",
        "ko": "먼저 split(E)로 Q, K, V로 나누고, 각각을 헤드 0, 1, 2에 D열씩 나눕니다",
    },
    "diagram_fused_title": {"ja": "GPT-2 の QKV 一括射影の分け方", "ko": "GPT-2 QKV 통합 투영을 나누는 법"},
    "diagram_mask_causal": {"ja": "因果マスク", "ko": "인과 마스크"},
    "diagram_mask_padding": {"ja": "パディングマスク（長さ 3）", "ko": "패딩 마스크(길이 3)"},
    "diagram_mask_both": {"ja": "両方（論理積）", "ko": "둘 다(논리곱)"},
    "diagram_mask_legend": {
        "ja": "行がクエリ、列がキー。緑 = 見てよい（keep が True）、灰色 = 隠す",
        "ko": "행은 쿼리, 열은 키. 초록 = 봐도 됨(keep이 True), 회색 = 가림",
    },
    "diagram_mask_title": {"ja": "マスクの種類", "ko": "마스크의 종류"},
    "diagram_cache_keys": {"ja": "K キャッシュ＋新しいキー", "ko": "K 캐시 + 새 키"},
    "diagram_cache_values": {"ja": "V キャッシュ＋新しいバリュー", "ko": "V 캐시 + 새 밸류"},
    "diagram_cache_query": {"ja": "新しいクエリ", "ko": "새 쿼리"},
    "diagram_cache_note": {
        "ja": "新しいトークン（位置 {past}）は、キャッシュの {past} 個と自分自身を見ます（右下にそろえたマスク）",
        "ko": "새 토큰(위치 {past})은 캐시의 {past}개와 자기 자신을 봅니다(오른쪽 아래에 맞춘 마스크)",
    },
    "diagram_cache_title": {"ja": "KV キャッシュで 1 トークンずつ生成する", "ko": "KV 캐시로 토큰을 하나씩 생성하기"},
}
