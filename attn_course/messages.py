"""Every sentence a learner can see from Python code, in Japanese and in Korean.

Prose lives in the lesson sources; this module holds what code prints or raises:
check results, hints, errors, widget labels and figure text. Terms follow
lessons/GLOSSARY.md, which tests/test_language.py enforces.
"""

LANGUAGES = ("ja", "ko")
_current = "ja"

MESSAGES = {
    # --- set-up -------------------------------------------------------------
    "setup_done": {
        "ja": "準備ができました。言語: 日本語 / 計算デバイス: {device} / torch {torch}",
        "ko": "준비가 끝났습니다. 언어: 한국어 / 장치: {device} / torch {torch}",
    },
    "bad_language": {
        "ja": "言語は 'ja' か 'ko' を指定してください（受け取った値: {lang!r}）。",
        "ko": "언어는 'ja' 또는 'ko'로 지정하세요(받은 값: {lang!r}).",
    },
    # --- feedback pages (written by tools/grade.py from nbgrader's English template) ---
    "feedback_hidden_tests": {
        "ja": "# 隠しテスト（採点だけに使い、中身は公開しません）",
        "ko": "# 숨겨진 테스트(채점에만 쓰이며 내용은 공개하지 않습니다)",
    },
    "feedback_score": {"ja": "得点", "ko": "점수"},
    "feedback_test_cell": {"ja": "テストのセル", "ko": "테스트 셀"},
    "feedback_free_response": {"ja": "自由記述のコード", "ko": "자유 서술 코드"},
    "feedback_written": {"ja": "記述式の解答", "ko": "서술형 답안"},
    "feedback_task": {"ja": "課題", "ko": "과제"},
    "feedback_comment": {"ja": "コメント", "ko": "코멘트"},
    "feedback_late": {"ja": "提出遅れの減点", "ko": "지각 제출 감점"},
    "feedback_top": {"ja": "先頭へ", "ko": "맨 위로"},
    "feedback_answer": {"ja": "あなたの解答", "ko": "내 답안"},
    "feedback_grade_cell": {"ja": "採点セル", "ko": "채점 셀"},
    # --- how a failed check is shown -----------------------------------------
    "check_failed": {"ja": "チェック不合格", "ko": "검사 실패"},
    "bad_input": {"ja": "入力エラー", "ko": "입력 오류"},
    "hint": {"ja": "ヒント", "ko": "힌트"},
    "passed": {
        "ja": "✔ {name}: すべてのチェックに合格しました。",
        "ko": "✔ {name}: 모든 검사를 통과했습니다.",
    },
    "hidden_passed": {
        "ja": "✔ {name}: 隠しテストに合格しました。",
        "ko": "✔ {name}: 숨겨진 테스트를 통과했습니다.",
    },
    # --- input validation (helpers, reference and learner modules) -----------
    "not_tensor": {
        "ja": "{name} には torch.Tensor を渡してください（渡されたのは {kind} です）。",
        "ko": "{name}에는 torch.Tensor를 넘겨야 합니다(받은 타입: {kind}).",
    },
    "wrong_rank": {
        "ja": "{name} は {want} 次元のテンソル {layout} を想定していますが、渡されたのは {got} 次元（形状 {shape}）です。",
        "ko": "{name}의 차원 수가 맞지 않습니다. 기대: {want}차원 텐서 {layout} / 받은 것: {got}차원(모양 {shape})",
    },
    "embed_mismatch": {
        "ja": "入力の最後の軸（埋め込み次元 E）は {want} のはずですが {got} でした（形状 {shape}）。モジュールを作ったときの embed_dim と入力が合っていません。",
        "ko": "입력의 마지막 축(임베딩 차원 E)은 {want}여야 하는데 {got}입니다(모양 {shape}). 모듈을 만들 때 준 embed_dim과 입력이 맞지 않습니다.",
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
    "tokens_mismatch": {
        "ja": "トークンの数（{n}）と重みの行列の大きさ（{t}×{t}）が合っていません。",
        "ko": "토큰 수({n})와 가중치 행렬의 크기({t}×{t})가 맞지 않습니다.",
    },
    # --- diagnosis of a learner's function ---------------------------------
    "raised": {
        "ja": "{name} を呼ぶとエラーになりました: {error}",
        "ko": "{name}을(를) 호출하자 오류가 났습니다: {error}",
    },
    "not_implemented": {
        "ja": "{name} はまだ実装されていません。`raise NotImplementedError()` の行を消して、コードを書いてください。",
        "ko": "{name}은(는) 아직 구현되지 않았습니다. `raise NotImplementedError()` 줄을 지우고 코드를 작성하세요.",
    },
    "returned_not_tensor": {
        "ja": "{name} の戻り値は torch.Tensor のはずですが、{kind} が返ってきました。",
        "ko": "{name}의 반환값은 torch.Tensor여야 하는데 {kind}이(가) 반환되었습니다.",
    },
    "returned_not_pair": {
        "ja": "{name} は (出力, 重み) の2つを返してください。返ってきたのは {kind} でした。",
        "ko": "{name}은(는) (출력, 가중치) 두 개를 반환해야 합니다. 반환된 것은 {kind}입니다.",
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
    "what_scores": {"ja": "スコア", "ko": "점수"},
    "what_weights": {"ja": "重み", "ko": "가중치"},
    "what_output": {"ja": "出力", "ko": "출력"},
    "has_nan": {
        "ja": "{what}に NaN または inf が含まれています。",
        "ko": "{what}에 NaN 또는 inf가 들어 있습니다.",
    },
    # hints for the classic bugs ------------------------------------------------
    "hint_transpose_k": {
        "ja": "Q は (…, T_q, d_k)、K は (…, T_k, d_k) です。行列積 Q @ Kᵀ のためには K の最後の2軸を入れ替えて (…, d_k, T_k) にします: K.transpose(-2, -1)。",
        "ko": "Q는 (…, T_q, d_k), K는 (…, T_k, d_k)입니다. 행렬 곱 Q @ Kᵀ를 하려면 K의 마지막 두 축을 바꿔 (…, d_k, T_k)로 만들어야 합니다: K.transpose(-2, -1).",
    },
    "hint_dot_T": {
        "ja": "3次元以上のテンソルに .T を使うと、すべての軸が逆順になります（(B, T, d) → (d, T, B)）。バッチはそのままにして最後の2軸だけを入れ替える K.transpose(-2, -1)（または K.mT）を使いましょう。",
        "ko": "3차원 이상 텐서에 .T를 쓰면 모든 축의 순서가 뒤집힙니다((B, T, d) → (d, T, B)). 배치 축은 그대로 두고 마지막 두 축만 바꾸는 K.transpose(-2, -1)(또는 K.mT)을 쓰세요.",
    },
    "hint_kq_order": {
        "ja": "K @ Qᵀ を計算していませんか。行がクエリ、列がキーになるように Q @ Kᵀ の順にします。",
        "ko": "혹시 K @ Qᵀ를 계산하지 않았나요? 행이 쿼리, 열이 키가 되도록 Q @ Kᵀ 순서로 곱해야 합니다.",
    },
    "hint_no_scale": {
        "ja": "スケーリングを忘れているようです。QKᵀ を √d_k で割ってください。割らないと d_k が大きいときに分散が d_k 倍になり、ソフトマックスが飽和します。",
        "ko": "스케일링을 빠뜨린 것 같습니다. QKᵀ를 √d_k로 나누세요. 나누지 않으면 d_k가 클 때 분산이 d_k배가 되어 소프트맥스가 포화합니다.",
    },
    "hint_scale_dk": {
        "ja": "d_k で割っていませんか。割るのは √d_k です（math.sqrt(d_k) または d_k ** 0.5）。d_k で割ると分散は 1 ではなく 1/d_k まで縮みます。",
        "ko": "d_k로 나누지 않았나요? 나눠야 하는 값은 √d_k입니다(math.sqrt(d_k) 또는 d_k ** 0.5). d_k로 나누면 분산이 1이 아니라 1/d_k로 줄어듭니다.",
    },
    "hint_scale_mul": {
        "ja": "√d_k を掛けていませんか。掛けるのではなく割ります。",
        "ko": "√d_k를 곱하지 않았나요? 곱하는 것이 아니라 나눠야 합니다.",
    },
    "hint_scale_wrong_dim": {
        "ja": "割る数に別の軸の大きさを使っていませんか。d_k は Q の最後の軸の大きさ Q.size(-1) です（系列長ではありません）。",
        "ko": "나누는 값에 다른 축의 크기를 쓰지 않았나요? d_k는 Q의 마지막 축 크기 Q.size(-1)입니다(시퀀스 길이가 아닙니다).",
    },
    "hint_softmax_axis": {
        "ja": "ソフトマックスをかける軸が違います。各クエリ（行）について、キー方向（最後の軸, dim=-1）の和が 1 になるはずです。いまは軸 {axis} の方向に和が 1 になっています。",
        "ko": "소프트맥스를 적용하는 축이 틀렸습니다. 각 쿼리(행)마다 키 방향(마지막 축, dim=-1)의 합이 1이 되어야 합니다. 지금은 축 {axis} 방향의 합이 1입니다.",
    },
    "hint_rows_not_normalised": {
        "ja": "各行の和が 1 になっていません（最後の軸で和をとると {lo:.3g}〜{hi:.3g}）。exp の和で割り忘れていないか確認してください。",
        "ko": "각 행의 합이 1이 아닙니다(마지막 축으로 더하면 {lo:.3g}~{hi:.3g}). exp의 합으로 나누는 것을 잊지 않았는지 확인하세요.",
    },
    "hint_softmax_overflow": {
        "ja": "大きなスコア（例: 1000）を入れると NaN や inf になりました。exp をとる前に各行の最大値を引くと、結果を変えずにオーバーフローを防げます。",
        "ko": "큰 점수(예: 1000)를 넣었더니 NaN이나 inf가 나왔습니다. exp를 취하기 전에 각 행의 최댓값을 빼면 결과는 그대로이면서 오버플로를 막을 수 있습니다.",
    },
    "hint_weights_v_order": {
        "ja": "出力は 重み @ V です（(…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)）。",
        "ko": "출력은 가중치 @ V입니다((…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)).",
    },
    "hint_returns_scores": {
        "ja": "2つ目の戻り値はソフトマックス後の重みにしてください（ソフトマックス前のスコアになっているようです）。",
        "ko": "두 번째 반환값은 소프트맥스를 거친 가중치여야 합니다(소프트맥스 전의 점수를 반환한 것 같습니다).",
    },
    "hint_w_o_missing": {
        "ja": "出力射影 W_o を忘れていませんか。重み @ V の結果は (B, T, D) なので、W_o で埋め込み次元 E に戻して (B, T, E) にします。",
        "ko": "출력 투영 W_o를 빠뜨리지 않았나요? 가중치 @ V의 결과는 (B, T, D)이므로 W_o로 임베딩 차원 E로 되돌려 (B, T, E)로 만들어야 합니다.",
    },
    "hint_missing_layer": {
        "ja": "self.{name} が見つかりません。__init__ で self.{name} = nn.Linear(...) を作ってください。",
        "ko": "self.{name}이(가) 없습니다. __init__에서 self.{name} = nn.Linear(...)를 만드세요.",
    },
    "hint_not_linear": {
        "ja": "self.{name} は nn.Linear にしてください（いまは {kind}）。",
        "ko": "self.{name}은(는) nn.Linear여야 합니다(지금은 {kind}).",
    },
    "hint_layer_shape": {
        "ja": "self.{name} の形状が違います: nn.Linear({want_in}, {want_out}) のはずが nn.Linear({got_in}, {got_out}) です。{why}",
        "ko": "self.{name}의 모양이 다릅니다: nn.Linear({want_in}, {want_out})여야 하는데 nn.Linear({got_in}, {got_out})입니다. {why}",
    },
    "why_proj_in": {
        "ja": "W_q, W_k, W_v は埋め込み次元 E をキー次元 D に写します。",
        "ko": "W_q, W_k, W_v는 임베딩 차원 E를 키 차원 D로 사상합니다.",
    },
    "why_proj_out": {
        "ja": "W_o はバリューの次元 D（ここではキー次元と同じ）を埋め込み次元 E に戻します。",
        "ko": "W_o는 키 차원 D를 임베딩 차원 E로 되돌립니다.",
    },
    "hint_has_bias": {
        "ja": "self.{name} にバイアスがあります。この講座の Attention では bias=False にします。",
        "ko": "self.{name}에 편향이 있습니다. 이 강좌의 Attention에서는 bias=False로 둡니다.",
    },
    "hint_param_count": {
        "ja": "パラメータ数が {got} ですが、4·E·D = {want} のはずです。余分な層やバイアスがないか確認してください。",
        "ko": "파라미터 수가 {got}인데, 4·E·D = {want}이어야 합니다. 불필요한 층이나 편향이 없는지 확인하세요.",
    },
    "hint_no_input_check": {
        "ja": "誤った入力 {shape} でもエラーになりませんでした。forward の最初の行 course.expect_tokens(x, self.embed_dim) を消していませんか。",
        "ko": "잘못된 입력 {shape}에도 오류가 나지 않았습니다. forward 첫 줄의 course.expect_tokens(x, self.embed_dim)을 지우지 않았나요?",
    },
    "hint_uses_layers": {
        "ja": "出力が self.W_q / W_k / W_v / W_o の重みから計算した値と一致しません。forward で自分の層を使っているか確認してください。",
        "ko": "출력이 self.W_q / W_k / W_v / W_o의 가중치로 계산한 값과 일치하지 않습니다. forward에서 자신의 층을 쓰고 있는지 확인하세요.",
    },
    "hint_wrong_projection": {
        "ja": "Q, K, V を作る層が入れ替わっていませんか（Q は W_q、K は W_k、V は W_v から）。",
        "ko": "Q, K, V를 만드는 층이 뒤바뀌지 않았나요? (Q는 W_q, K는 W_k, V는 W_v로 만듭니다.)",
    },
    # lesson 2: splitting and merging heads ----------------------------------------
    "hint_view_without_transpose": {
        "ja": "view だけで (B, H, T, D) にしていませんか。メモリ上では各トークンのベクトルが [ヘッド0 | ヘッド1 | …] の順に並んでいます。まず view(B, T, H, D) で最後の軸をヘッドごとに切り分け、それから transpose(1, 2) で H を T の前に出します。",
        "ko": "view만으로 (B, H, T, D)를 만들지 않았나요? 메모리에는 각 토큰의 벡터가 [헤드0 | 헤드1 | …] 순서로 놓여 있습니다. 먼저 view(B, T, H, D)로 마지막 축을 헤드별로 자르고, 그다음 transpose(1, 2)로 H를 T 앞으로 옮겨야 합니다.",
    },
    "hint_missing_transpose": {
        "ja": "view(B, T, H, D) のあとの転置が抜けています。transpose(1, 2) で T と H の軸を入れ替えて、(B, H, T, D) にしてください。",
        "ko": "view(B, T, H, D) 다음의 전치가 빠졌습니다. transpose(1, 2)로 T축과 H축을 바꿔 (B, H, T, D)로 만드세요.",
    },
    "hint_interleaved": {
        "ja": "各ヘッドが H 成分おきの飛び飛びの成分を拾っています。view(B, T, D, H) のように D と H の順を逆にすると、ヘッド h が成分 h, h+H, h+2H, … を受け持つことになります。view(B, T, H, D) なら、ヘッド h は成分 h·D 〜 (h+1)·D − 1 のひと続きを受け持ちます。",
        "ko": "각 헤드가 H칸씩 건너뛴 성분을 가져가고 있습니다. view(B, T, D, H)처럼 D와 H의 순서를 바꾸면 헤드 h가 h, h+H, h+2H, … 번째 성분을 맡게 됩니다. view(B, T, H, D)로 나누면 헤드 h는 h·D번째부터 (h+1)·D − 1번째까지 이어진 성분을 맡습니다.",
    },
    "hint_heads_order": {
        "ja": "ヘッドの並び順が逆です（flip を使っていませんか）。結合したあとの成分 h·D 〜 (h+1)·D − 1 には、ヘッド h の出力が入ります。",
        "ko": "헤드 순서가 거꾸로입니다(flip을 쓰지 않았나요?). 합친 뒤의 h·D번째부터 (h+1)·D − 1번째 성분에는 헤드 h의 출력이 들어가야 합니다.",
    },
    "hint_contiguous": {
        "ja": "transpose したテンソルはメモリ上で連続していないので、そのままでは view できません。transpose(1, 2).contiguous().view(B, T, H * D) とするか、reshape を使ってください。",
        "ko": "transpose한 텐서는 메모리에서 연속적이지 않아서 그대로는 view할 수 없습니다. transpose(1, 2).contiguous().view(B, T, H * D)로 쓰거나 reshape를 쓰세요.",
    },
    "hint_merge_without_transpose": {
        "ja": "(B, H, T, D) をそのまま view(B, T, H * D) にしていませんか。先に transpose(1, 2) で (B, T, H, D) に戻してから、最後の2軸をつなげます。",
        "ko": "(B, H, T, D)를 그대로 view(B, T, H * D)로 바꾸지 않았나요? 먼저 transpose(1, 2)로 (B, T, H, D)로 되돌린 다음 마지막 두 축을 이어 붙여야 합니다.",
    },
    "hint_not_split": {
        "ja": "重みが (B, T, T) になっています。ヘッドごとに別々のソフトマックスをとるので、重みは (B, H, T, T) のはずです。Q, K, V を split_heads で分けてからスコアを計算してください。",
        "ko": "가중치가 (B, T, T)입니다. 헤드마다 따로 소프트맥스를 하므로 가중치는 (B, H, T, T)여야 합니다. Q, K, V를 split_heads로 나눈 다음 점수를 계산하세요.",
    },
    "hint_scale_head_dim": {
        "ja": "割る数が違います。スケーリングに使うのは1つのヘッドの次元 D（head_dim）の平方根 √D です。√(H·D) や √E ではありません。",
        "ko": "나누는 값이 틀렸습니다. 스케일링에는 헤드 하나의 차원 D(head_dim)의 제곱근 √D를 씁니다. √(H·D)나 √E가 아닙니다.",
    },
    "embed_not_divisible": {
        "ja": "embed_dim = {e} は n_head = {h} で割り切れません。各ヘッドの次元は embed_dim // n_head なので、割り切れる組み合わせにしてください。",
        "ko": "embed_dim = {e}, n_head = {h}: embed_dim이 n_head로 나누어떨어지지 않습니다. 헤드 하나의 차원은 embed_dim // n_head이므로 나누어떨어지는 조합을 쓰세요.",
    },
    "hint_head_dim_divides": {
        "ja": "embed_dim = {e} は n_head = {h} で割り切れないので、head_dim を決められません。head_dim を指定するか、割り切れる組み合わせにしてください。",
        "ko": "embed_dim = {e}, n_head = {h}: 나누어떨어지지 않아서 head_dim을 정할 수 없습니다. head_dim을 직접 지정하거나 나누어떨어지는 조합을 쓰세요.",
    },
    "hint_head_dim_default": {
        "ja": "head_dim を省略したときは embed_dim // n_head を使ってください（MultiHeadAttention({e}, {h}) なら {want}、いまは {got}）。",
        "ko": "head_dim을 생략하면 embed_dim // n_head를 써야 합니다(MultiHeadAttention({e}, {h})라면 {want}, 지금은 {got}).",
    },
    "hint_no_divisibility_error": {
        "ja": "MultiHeadAttention({e}, {h}) がエラーになりませんでした。割り切れないときは course.checks.resolve_head_dim が ValueError を出すので、__init__ で使ってください。",
        "ko": "MultiHeadAttention({e}, {h})에서 오류가 나지 않았습니다. 나누어떨어지지 않으면 course.checks.resolve_head_dim이 ValueError를 내므로 __init__에서 이 함수를 쓰세요.",
    },
    "torch_mha_incompatible": {
        "ja": "nn.MultiheadAttention はヘッドの次元を embed_dim // num_heads に固定しているので、n_head × head_dim = embed_dim のときしか重みを移せません（いまは {h} × {d} ≠ {e}）。",
        "ko": "nn.MultiheadAttention은 헤드 차원을 embed_dim // num_heads로 고정하므로 n_head × head_dim = embed_dim일 때만 가중치를 옮길 수 있습니다(지금은 {h} × {d} ≠ {e}).",
    },
    "hint_returns_torch_mha": {
        "ja": "nn.MultiheadAttention を返してください（いまは {kind}）。",
        "ko": "nn.MultiheadAttention을 반환하세요(지금은 {kind}).",
    },
    "hint_torch_mha_setup": {
        "ja": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True) として作ってください（{what} が違います）。",
        "ko": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True)로 만드세요({what}이(가) 다릅니다).",
    },
    "hint_in_proj_order": {
        "ja": "in_proj_weight には W_q, W_k, W_v の weight をこの順に縦に連結（torch.cat(..., dim=0)）して入れます。順番が入れ替わっているようです。",
        "ko": "in_proj_weight에는 W_q, W_k, W_v의 weight를 이 순서대로 세로로 이어 붙여(torch.cat(..., dim=0)) 넣습니다. 순서가 바뀐 것 같습니다.",
    },
    "hint_in_proj_transposed": {
        "ja": "weight は転置せずにそのままコピーします。nn.Linear の weight も in_proj_weight も (出力, 入力) の形状です。",
        "ko": "weight는 전치하지 말고 그대로 복사합니다. nn.Linear의 weight도 in_proj_weight도 (출력, 입력) 모양입니다.",
    },
    "hint_out_proj": {
        "ja": "out_proj.weight に W_o.weight をコピーしたか確認してください。",
        "ko": "out_proj.weight에 W_o.weight를 복사했는지 확인하세요.",
    },
    "hint_head_slice": {
        "ja": "ヘッド i の W_q, W_k, W_v は weight の行 i·D 〜 (i+1)·D − 1（weight[i*D:(i+1)*D]）、W_o は列のほう（W_o.weight[:, i*D:(i+1)*D]）です。",
        "ko": "헤드 i의 W_q, W_k, W_v는 weight의 행 i·D ~ (i+1)·D − 1(weight[i*D:(i+1)*D])이고, W_o는 열 쪽(W_o.weight[:, i*D:(i+1)*D])입니다.",
    },
    "hint_head_returns_attention": {
        "ja": "head_as_single は第1回の Attention モジュール（Attention(embed_dim, head_dim)）を返してください。",
        "ko": "head_as_single은 1강의 Attention 모듈(Attention(embed_dim, head_dim))을 반환해야 합니다.",
    },
    "hint_sum_of_heads": {
        "ja": "1つずつ取り出したヘッドの出力の和が、MultiHeadAttention の出力と一致しません（最大誤差 {err:.3g}）。",
        "ko": "하나씩 꺼낸 헤드 출력의 합이 MultiHeadAttention의 출력과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "fig_wide_vs_heads": {
        "ja": "1つの幅広ヘッド（左）と {h} 個のヘッド（右）の重み",
        "ko": "넓은 헤드 하나(왼쪽)와 헤드 {h}개(오른쪽)의 가중치",
    },
    "demo_wide_vs_heads": {
        "ja": "パラメータ数: ヘッド {h} 個 = {a}、幅広のヘッド1つ = {b}。出力の相対差 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
        "ko": "파라미터 수: 헤드 {h}개 = {a}, 넓은 헤드 하나 = {b}. 출력의 상대 차이 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
    },
    "demo_seeds": {
        "ja": "シードを {n} 通り変えたとき（パラメータも入力も毎回作り直します）の相対差：最小 {lo:.3f}、平均 {mean:.3f}、最大 {hi:.3f}",
        "ko": "시드를 {n}가지로 바꿔 가며(파라미터와 입력을 매번 새로 만듭니다) 잰 상대 차이: 최소 {lo:.3f}, 평균 {mean:.3f}, 최대 {hi:.3f}",
    },
    "fig_wide_head": {"ja": "幅 H·D = {w} のヘッド1つ", "ko": "폭 H·D = {w}인 헤드 하나"},
    # lesson 3: masks and dropout ------------------------------------------------------
    "hint_upper_triangle": {
        "ja": "上三角が残っています。因果マスクでは、クエリ i が見てよいのはキー j ≤ i（対角線とその左下）です。torch.tril を使います（triu ではありません）。",
        "ko": "위 삼각형이 남아 있습니다. 인과 마스크에서 쿼리 i가 볼 수 있는 것은 키 j ≤ i(대각선과 그 왼쪽 아래)입니다. torch.triu가 아니라 torch.tril을 쓰세요.",
    },
    "hint_inverted_mask": {
        "ja": "マスクが反転しています。この講座の keep マスクは「見てよいところが True」です。masked_fill は True の場所を埋めるので、埋めるのは ~keep（見てはいけないところ）です。",
        "ko": "마스크가 뒤집혔습니다. 이 강좌의 keep 마스크는 '봐도 되는 곳이 True'입니다. masked_fill은 True인 곳을 채우므로, 채울 곳은 ~keep(보면 안 되는 곳)입니다.",
    },
    "hint_mask_not_bool": {
        "ja": "マスクは dtype=torch.bool にしてください（いまは {dtype}）。",
        "ko": "마스크는 dtype=torch.bool이어야 합니다(지금은 {dtype}).",
    },
    "hint_mask_device": {
        "ja": "マスクがスコアと別のデバイスに作られています。torch.ones(T, T) のように device を指定せずに作ると CPU に置かれ、GPU 上のスコアと組み合わせたときにエラーになります。device= を渡すか、register_buffer で登録してモジュールと一緒に移動させてください。",
        "ko": "마스크가 점수와 다른 장치에 만들어졌습니다. torch.ones(T, T)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 점수와 함께 쓰면 오류가 납니다. device=를 넘기거나 register_buffer로 등록해 모듈과 함께 옮겨지게 하세요.",
    },
    "hint_mask_multiplied": {
        "ja": "スコアにマスクを掛けて 0 にしていませんか。exp(0) = 1 なので、0 にしても見てはいけない位置に重みが残ります。見てはいけない位置のスコアは -inf で埋めます。",
        "ko": "점수에 마스크를 곱해 0으로 만들지 않았나요? exp(0) = 1이라서 0으로 바꿔도 보면 안 되는 위치에 가중치가 남습니다. 보면 안 되는 위치의 점수는 -inf로 채웁니다.",
    },
    "hint_mask_after_softmax": {
        "ja": "ソフトマックスのあとでマスクをかけていませんか。その場合、マスクした重みは 0 になりますが、各行の和が 1 になりません。マスクはソフトマックスの前に、スコアを -inf で埋める形でかけます。",
        "ko": "소프트맥스 다음에 마스크를 씌우지 않았나요? 그러면 가린 가중치는 0이 되지만 각 행의 합이 1이 되지 않습니다. 마스크는 소프트맥스 전에, 점수를 -inf로 채우는 방식으로 씌워야 합니다.",
    },
    "hint_no_mask": {
        "ja": "重みの上三角が 0 になっていません。因果マスクがかかっていないようです。",
        "ko": "가중치의 위 삼각형이 0이 아닙니다. 인과 마스크가 적용되지 않은 것 같습니다.",
    },
    "hint_padding_off_by_one": {
        "ja": "1つずれています。長さ T_b の系列では位置 0 〜 T_b−1 が本物のトークンで、位置 T_b からがパディングです（arange(T) < T_b。≤ ではありません）。",
        "ko": "한 칸 어긋났습니다. 길이가 T_b인 시퀀스에서는 위치 0 ~ T_b−1이 실제 토큰이고 위치 T_b부터가 패딩입니다(arange(T) < T_b이며, ≤가 아닙니다).",
    },
    "hint_padding_inverted": {
        "ja": "True と False が逆です。padding_keep では本物のトークン（位置 < 長さ）を True、パディングを False にします。",
        "ko": "True와 False가 반대입니다. padding_keep에서는 실제 토큰(위치 < 길이)이 True, 패딩이 False입니다.",
    },
    "hint_padding_ignored": {
        "ja": "lengths が無視されているようです。パディングの位置（長さ以降のキー）にも重みが付いています。",
        "ko": "lengths가 무시된 것 같습니다. 패딩 위치(길이 이후의 키)에도 가중치가 붙어 있습니다.",
    },
    "hint_nan_fully_masked": {
        "ja": "すべてのキーがマスクされた行（長さ 0 の系列など）で NaN が出ています。softmax(-inf, …, -inf) は 0/0 = NaN です。そうした行では、ソフトマックスのあとで重みを 0 に置き換えてください（たとえば nan_to_num(0.0)）。",
        "ko": "모든 키가 가려진 행(길이 0인 시퀀스 등)에서 NaN이 나옵니다. softmax(-inf, …, -inf)는 0/0 = NaN입니다. 그런 행은 소프트맥스 다음에 가중치를 0으로 바꾸세요(예: nan_to_num(0.0)).",
    },
    "hint_dropout_eval": {
        "ja": "eval モードなのに、出力が呼ぶたびに変わるか、ドロップアウトなしの結果と一致しません。nn.Dropout を使えば eval() で自動的に止まります（F.dropout を使うなら training=self.training を渡してください）。",
        "ko": "eval 모드인데도 출력이 호출할 때마다 바뀌거나, 드롭아웃을 뺀 결과와 다릅니다. nn.Dropout은 eval()에서 자동으로 꺼집니다(F.dropout을 쓴다면 training=self.training을 넘기세요).",
    },
    "hint_dropout_train": {
        "ja": "train モードでドロップアウトがかかっていません。self.dropout を重みに適用してください。",
        "ko": "train 모드에서 드롭아웃이 적용되지 않았습니다. self.dropout을 가중치에 적용하세요.",
    },
    "hint_weights_after_dropout": {
        "ja": "返している重みがドロップアウト後のものです（各行の和が 1 になりません）。図や確認のために、ドロップアウト前の重みを返してください。",
        "ko": "반환한 가중치가 드롭아웃을 거친 것입니다(각 행의 합이 1이 아닙니다). 그림과 확인을 위해 드롭아웃 전의 가중치를 반환하세요.",
    },
    "hint_buffer_missing": {
        "ja": "self.causal がバッファとして登録されていません。__init__ で self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False) のように登録してください（第3回では causal_mask(max_len) でも作れます）。",
        "ko": "self.causal이 버퍼로 등록되어 있지 않습니다. __init__에서 self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)처럼 등록하세요(3강에서는 causal_mask(max_len)로 만들어도 됩니다).",
    },
    "hint_sdpa_mismatch": {
        "ja": "use_sdpa=True の出力が、マスクを使った計算と一致しません。scaled_dot_product_attention の bool マスクは「True の場所を見る」です（nn.MultiheadAttention とは逆）。keep マスクをそのまま attn_mask に渡してください。",
        "ko": "use_sdpa=True의 출력이 마스크를 쓴 계산과 일치하지 않습니다. scaled_dot_product_attention의 bool 마스크는 'True인 곳을 본다'입니다(nn.MultiheadAttention과 반대). keep 마스크를 그대로 attn_mask에 넘기세요.",
    },
    "hint_same_convention": {
        "ja": "マスクがそのまま返ってきました。nn.MultiheadAttention の bool マスクは「True = 隠す」、scaled_dot_product_attention は「True = 見る」で、意味が逆です。",
        "ko": "마스크가 그대로 반환되었습니다. nn.MultiheadAttention의 bool 마스크는 'True = 가림', scaled_dot_product_attention은 'True = 봄'으로 뜻이 반대입니다.",
    },
    "hint_additive_changed": {
        "ja": "加算マスク（float）は、どちらの関数でも「スコアに足す値」なので、変換せずにそのまま返します。",
        "ko": "덧셈 마스크(float)는 두 함수 모두에서 '점수에 더하는 값'이므로 변환하지 않고 그대로 반환합니다.",
    },
    "hint_not_causal": {
        "ja": "因果性が崩れています：位置 {t} より後のトークンを変えたら、位置 {t} までの出力が変わりました。",
        "ko": "인과성이 깨졌습니다: 위치 {t} 뒤의 토큰을 바꾸자 위치 {t}까지의 출력이 바뀌었습니다.",
    },
    "case_masked_path": {
        "ja": "自分で書いた計算（use_sdpa=False）",
        "ko": "직접 구현한 계산(use_sdpa=False)",
    },
    "case_sdpa_path": {
        "ja": "scaled_dot_product_attention を使った計算（use_sdpa=True）",
        "ko": "scaled_dot_product_attention을 쓴 계산(use_sdpa=True)",
    },
    "case_eval_determinism": {"ja": "eval モードでの再現性", "ko": "eval 모드에서의 재현성"},
    "stage_scores": {"ja": "QKᵀ", "ko": "QKᵀ"},
    "stage_scaled": {"ja": "÷√D", "ko": "÷√D"},
    "stage_masked": {"ja": "＋マスク", "ko": "+마스크"},
    "stage_softmax": {"ja": "ソフトマックス", "ko": "소프트맥스"},
    "widget_stage": {"ja": "段階", "ko": "단계"},
    "widget_causal": {"ja": "因果マスク", "ko": "인과 마스크"},
    "widget_padding": {"ja": "パディングマスク", "ko": "패딩 마스크"},
    "fig_stage_title": {"ja": "{stage}（× はマスクされた位置）", "ko": "{stage}(×는 가려진 위치)"},
    "fig_pad_token": {"ja": "〈パッド〉", "ko": "〈패드〉"},
    # lesson 4: GPT-2's fused QKV ---------------------------------------------------------
    "hint_returns_triple": {
        "ja": "{name} は (q, k, v) の3つを返してください（いまは {kind}）。",
        "ko": "{name}은(는) (q, k, v) 세 개를 반환해야 합니다(지금은 {kind}).",
    },
    "hint_interleaved_qkv": {
        "ja": "ヘッドが混ざっています。(B, T, H, 3·D) に reshape してから chunk すると、ヘッドごとに [q | k | v] が並んでいる前提になりますが、GPT-2 の c_attn の出力は [Q 全体 | K 全体 | V 全体] の順です。先に split(E, dim=2) で Q, K, V に分け、それぞれをヘッドに分けてください。",
        "ko": "헤드가 섞였습니다. (B, T, H, 3·D)로 reshape한 다음 chunk하면 헤드마다 [q | k | v]가 놓여 있다고 가정하게 되지만, GPT-2의 c_attn 출력은 [Q 전체 | K 전체 | V 전체] 순서입니다. 먼저 split(E, dim=2)로 Q, K, V를 나눈 다음 각각을 헤드로 나누세요.",
    },
    "hint_qkv_order": {
        "ja": "Q, K, V の順番が入れ替わっています。c_attn の出力は最初の E 個が Q、次の E 個が K、最後の E 個が V です。",
        "ko": "Q, K, V의 순서가 바뀌었습니다. c_attn 출력의 처음 E개가 Q, 다음 E개가 K, 마지막 E개가 V입니다.",
    },
    "layer_missing_bias": {
        "ja": "{name} にバイアスがありません。このモジュールの nn.Linear はすべてバイアス付きです（nn.Linear の既定 bias=True のままにしてください）。",
        "ko": "{name}에 편향이 없습니다. 이 모듈의 nn.Linear는 모두 편향이 있습니다(nn.Linear의 기본값 bias=True를 그대로 두세요).",
    },
    "hint_missing_bias": {
        "ja": "バイアスが足りません。GPT-2 の c_attn と c_proj にはバイアスがあります（nn.Linear の既定 bias=True のままにし、重みを移すときはバイアスもコピーします）。",
        "ko": "편향이 빠졌습니다. GPT-2의 c_attn과 c_proj에는 편향이 있습니다(nn.Linear의 기본값 bias=True를 그대로 두고, 가중치를 옮길 때 편향도 복사하세요).",
    },
    "hint_missing_mask": {
        "ja": "因果マスクがかかっていません。GPT-2 はデコーダなので、各トークンが自分より後ろのトークンを見ないよう、スコアにマスクをかけます（SDPA なら is_causal=True）。",
        "ko": "인과 마스크가 적용되지 않았습니다. GPT-2는 디코더이므로 각 토큰이 자기보다 뒤의 토큰을 보지 않도록 점수에 마스크를 씌워야 합니다(SDPA라면 is_causal=True).",
    },
    "hint_conv1d_transpose": {
        "ja": "Hugging Face の GPT-2 は Conv1D という層を使い、weight を (入力, 出力) の形で持っています。nn.Linear の weight は (出力, 入力) なので、コピーするときに .T で転置してください。c_proj は正方行列なので、転置を忘れてもエラーにならず、値だけが違ってしまいます。",
        "ko": "Hugging Face의 GPT-2는 Conv1D라는 층을 쓰고 weight를 (입력, 출력) 모양으로 가집니다. nn.Linear의 weight는 (출력, 입력)이므로 복사할 때 .T로 전치하세요. c_proj는 정사각 행렬이라서 전치를 잊어도 오류 없이 값만 달라집니다.",
    },
    "hint_init_std": {
        "ja": "{name} の標準偏差が {got:.4f} になっています。GPT-2 の初期化では、平均 0・標準偏差 {want:.4f} の正規分布を使います（c_proj だけは 0.02/√(2·n_layer)）。",
        "ko": "{name}의 표준편차가 {got:.4f}입니다. GPT-2는 평균 0, 표준편차 {want:.4f}인 정규분포로 초기화합니다(c_proj만 0.02/√(2·n_layer)).",
    },
    "hint_init_bias": {
        "ja": "{name} が 0 になっていません。GPT-2 の初期化ではバイアスを 0 にします。",
        "ko": "{name}이(가) 0이 아닙니다. GPT-2 초기화에서는 편향을 0으로 둡니다.",
    },
    "demo_hf_error": {
        "ja": "E = {e}, H = {h}: GPT2Attention との最大誤差は、マスクを使う計算で {a:.1e}、SDPA で {b:.1e}",
        "ko": "E = {e}, H = {h}: GPT2Attention과의 최대 오차는 마스크를 쓴 계산에서 {a:.1e}, SDPA에서 {b:.1e}",
    },
    "fig_fused_title": {
        "ja": "c_attn.weight（{rows} × {cols}）：Q | K | V のブロックとヘッドの境界",
        "ko": "c_attn.weight({rows} × {cols}): Q | K | V 블록과 헤드 경계",
    },
    "fig_in_features": {"ja": "入力の次元（E）", "ko": "입력 차원(E)"},
    "fig_out_features": {"ja": "出力の次元（3E = Q | K | V）", "ko": "출력 차원(3E = Q | K | V)"},
    # numeric answers ------------------------------------------------------------
    "answer_missing": {
        "ja": "{name} にまだ値が入っていません。数値を代入してください。",
        "ko": "{name}에 아직 값이 없습니다. 숫자를 대입하세요.",
    },
    "answer_not_number": {
        "ja": "{name} は数値にしてください（いまは {kind}）。",
        "ko": "{name}은(는) 숫자여야 합니다(지금은 {kind}).",
    },
    "answer_far_from_measured": {
        "ja": "{name} = {got} は、上の表で測った値 {measured:.3g} からかけ離れています。表を見直してみましょう。",
        "ko": "{name} = {got}은(는) 위 표에서 잰 값 {measured:.3g}과(와) 너무 다릅니다. 표를 다시 살펴보세요.",
    },
    "answer_std_not_var": {
        "ja": "{name} = {got} は標準偏差に見えます。聞いているのは分散（標準偏差の2乗）です。",
        "ko": "{name} = {got}은(는) 표준편차로 보입니다. 묻는 것은 분산(표준편차의 제곱)입니다.",
    },
    "answer_not_integer": {
        "ja": "{name} は整数になるはずです（いまは {got}）。",
        "ko": "{name}은(는) 정수여야 합니다(지금은 {got}).",
    },
    "answer_disagrees_with_module": {
        "ja": "{name} = {got} ですが、あなたの {module} のパラメータ数を数えると {counted} になります。どちらかを見直しましょう。",
        "ko": "{name} = {got}인데, 여러분의 {module}의 파라미터 수를 세면 {counted}입니다. 둘 중 하나를 다시 확인하세요.",
    },
    "answer_wrong": {
        "ja": "{name} の値が正しくありません。",
        "ko": "{name}의 값이 올바르지 않습니다.",
    },
    # hidden tests -----------------------------------------------------------------
    "tampered": {
        "ja": "採点に使う関数が書き換えられています（{names}）。torch や組み込み関数、講座のチェックを上書きしないでください。この答えは採点されません。",
        "ko": "채점에 쓰이는 함수가 바뀌었습니다({names}). torch나 내장 함수, 강좌의 검사 코드를 덮어쓰지 마세요. 이 답은 채점되지 않습니다.",
    },
    "tensor_subclass": {
        "ja": "{name} が torch.Tensor のサブクラスを返しました。ふつうの torch.Tensor を返してください。",
        "ko": "{name}이(가) torch.Tensor의 하위 클래스를 반환했습니다. 일반 torch.Tensor를 반환하세요.",
    },
    "hint_from_scratch": {
        "ja": "{name} は自分で組み立てる演習です。F.scaled_dot_product_attention や nn.MultiheadAttention を呼ばずに、行列積とソフトマックスで書いてください。",
        "ko": "{name}은(는) 직접 구현하는 연습 문제입니다. F.scaled_dot_product_attention이나 nn.MultiheadAttention을 부르지 말고 행렬 곱과 소프트맥스로 작성하세요.",
    },
    "hidden_mismatch": {
        "ja": "隠しテスト（{case}）: 参照実装と一致しません（最大誤差 {err:.3g}）。",
        "ko": "숨겨진 테스트({case}): 참조 구현과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hidden_grad_mismatch": {
        "ja": "隠しテスト（{case}）: 入力 {arg} についての勾配が参照実装と一致しません（最大誤差 {err:.3g}）。",
        "ko": "숨겨진 테스트({case}): 입력 {arg}에 대한 기울기가 참조 구현과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hidden_dtype": {
        "ja": "隠しテスト（{case}）: 入力が {want} なのに出力が {got} になりました。途中で型を変えないでください。",
        "ko": "숨겨진 테스트({case}): 입력이 {want}인데 출력이 {got}입니다. 중간에 자료형을 바꾸지 마세요.",
    },
    "case_float64": {"ja": "float64 の入力", "ko": "float64 입력"},
    "case_float32": {"ja": "float32 の入力", "ko": "float32 입력"},
    "case_grad": {"ja": "勾配", "ko": "기울기"},
    "reference_missing": {
        "ja": "参照実装が見つかりません。隠しテストは採点環境（autograder/）でだけ動きます。",
        "ko": "참조 구현을 찾을 수 없습니다. 숨겨진 테스트는 채점 환경(autograder/)에서만 동작합니다.",
    },
    # --- lesson 5 ------------------------------------------------------------------
    "returned_not_number": {
        "ja": "{name} は損失を数値（float）で返してください。返ってきたのは {kind} です。",
        "ko": "{name}에서는 손실을 숫자(float)로 반환하세요. 반환된 값의 타입: {kind}",
    },
    "hint_loss_item": {
        "ja": "`return loss.item()` と書くと、1要素のテンソルから float を取り出せます。",
        "ko": "`return loss.item()`이라고 쓰면 원소가 하나인 텐서에서 float를 꺼낼 수 있습니다.",
    },
    "train_loss_differs": {
        "ja": "{step} 回目の呼び出しで返した損失が、正しい値と違います（返した値: {got:.6f}、正しい値: {want:.6f}）。",
        "ko": "{step}번째 호출에서 반환한 손실이 올바른 값과 다릅니다(반환: {got:.6f}, 올바른 값: {want:.6f}).",
    },
    "hint_loss_softmax_twice": {
        "ja": "F.cross_entropy は内部でソフトマックスを計算します。ロジットをそのまま渡してください（先に softmax をかけると二重になります）。",
        "ko": "F.cross_entropy는 안에서 소프트맥스를 계산합니다. 로짓을 그대로 넘기세요(미리 소프트맥스를 적용하면 소프트맥스가 두 번 걸립니다).",
    },
    "hint_loss_layout": {
        "ja": "ロジット (B, T, 2, V) は `reshape(-1, V)` で (B·T·2, V) に、正解 (B, T, 2) は `reshape(-1)` で (B·T·2,) にしてから F.cross_entropy に渡します。正解が −100 の位置は ignore_index=-100 で損失から外します。",
        "ko": "로짓 (B, T, 2, V)는 `reshape(-1, V)`를 써서 (B·T·2, V)로, 정답 (B, T, 2)는 `reshape(-1)`을 써서 (B·T·2,)로 바꾼 뒤 F.cross_entropy에 넘깁니다. 정답이 −100인 위치는 ignore_index=-100으로 손실에서 뺍니다.",
    },
    "hint_zero_grad": {
        "ja": "2回目以降だけ合わないなら、前のステップの勾配に新しい勾配が足し込まれてしまっています。backward() の前に optimizer.zero_grad() を呼んでください。",
        "ko": "두 번째 호출부터만 어긋난다면 이전 단계의 기울기가 계속 누적되고 있는 것입니다. backward() 전에 optimizer.zero_grad()를 호출하세요.",
    },
    "train_no_update": {
        "ja": "train_step を呼んでもパラメータが変わりません。",
        "ko": "train_step을 호출해도 파라미터가 바뀌지 않습니다.",
    },
    "hint_train_order": {
        "ja": "順番は 損失の計算 → optimizer.zero_grad() → backward() → optimizer.step() です。zero_grad() は backward() より前ならどこでもかまいません。backward() と step() の間に呼ぶと、計算したばかりの勾配が消えてしまいます。",
        "ko": "순서는 손실 계산 → optimizer.zero_grad() → backward() → optimizer.step()입니다. zero_grad()는 backward()보다 앞이기만 하면 어디에 있어도 됩니다. backward()와 step() 사이에서 호출하면 방금 계산한 기울기가 지워집니다.",
    },
    "train_params_differ": {
        "ja": "{step} 回目の呼び出しのあと、パラメータが正しい値と違います。",
        "ko": "{step}번째 호출 뒤의 파라미터가 올바른 값과 다릅니다.",
    },
    "what_entropy": {"ja": "エントロピー", "ko": "엔트로피"},
    "hint_entropy_nan": {
        "ja": "因果マスクで重みがちょうど 0 の位置では 0·log 0 が NaN になります。定義では 0·log 0 = 0 です。torch.special.xlogy(w, w) を使うか、w.clamp_min(1e-12).log() のように 0 を避けてください。",
        "ko": "인과 마스크 때문에 가중치가 정확히 0인 위치에서는 0·log 0이 NaN이 됩니다. 정의상 0·log 0 = 0입니다. torch.special.xlogy(w, w)를 쓰거나 w.clamp_min(1e-12).log()처럼 0을 피하세요.",
    },
    "hint_entropy_log2": {
        "ja": "値が正しい値の 1/ln 2 ≈ 1.44 倍になっています。底が 2 の log（ビット）ではなく、自然対数 torch.log（nat）を使ってください。",
        "ko": "값이 올바른 값의 1/ln 2 ≈ 1.44배입니다. 밑이 2인 log(비트)가 아니라 자연로그 torch.log(nat)를 쓰세요.",
    },
    "hint_entropy_sign": {
        "ja": "符号が逆です。H = −Σ w log w で、値は 0 以上になります。",
        "ko": "부호가 반대입니다. H = −Σ w log w이고, 값은 0 이상입니다.",
    },
    "hint_entropy_mean_axes": {
        "ja": "行ごとのエントロピー (B, H, T) を、バッチの軸とクエリの軸で平均して (H,) にします: mean(dim=(0, 2))。",
        "ko": "행별 엔트로피 (B, H, T)를 배치 축과 쿼리 축으로 평균해서 (H,)로 만듭니다: mean(dim=(0, 2)).",
    },
    "ablation_differs": {
        "ja": "層 {layer}・ヘッド {head} を消したときの損失が、正しい値と違います（返した値: {got:.6f}、正しい値: {want:.6f}）。",
        "ko": "층 {layer}의 헤드 {head}: 이 헤드를 껐을 때의 손실이 올바른 값과 다릅니다(반환: {got:.6f}, 올바른 값: {want:.6f}).",
    },
    "hint_ablation_output": {
        "ja": "c_proj の出力ではなく入力を 0 にします。入力 (B, T, E) はヘッドの出力を横に並べたもので、ヘッド h は列 h·D から (h+1)·D の手前までです。出力の列はもうヘッドごとに分かれていません。",
        "ko": "c_proj의 출력이 아니라 입력을 0으로 만듭니다. 입력 (B, T, E)는 헤드의 출력을 옆으로 이어 붙인 것이고, 헤드 h는 열 h·D부터 (h+1)·D 직전까지입니다. 출력의 열은 더 이상 헤드별로 나뉘어 있지 않습니다.",
    },
    "hint_ablation_slice": {
        "ja": "0 にしたのは1列だけです。ヘッド h は D 列あります: [..., h * D:(h + 1) * D]。",
        "ko": "0으로 만든 것이 열 하나뿐입니다. 헤드 h는 D개의 열을 차지합니다: [..., h * D:(h + 1) * D].",
    },
    "hint_ablation_nothing": {
        "ja": "損失が元のままです。フックを登録したのは model.blocks[layer].attn.c_proj ですか。フックが新しいテンソルを返さないと、入力は変わりません。",
        "ko": "손실이 원래 그대로입니다. 훅을 model.blocks[layer].attn.c_proj에 등록했나요? 훅이 새 텐서를 반환하지 않으면 입력은 바뀌지 않습니다.",
    },
    "ablation_left_behind": {
        "ja": "loss_without_head を呼んだあと、モデルの出力が元に戻っていません。",
        "ko": "loss_without_head를 호출한 뒤 모델의 출력이 원래대로 돌아오지 않습니다.",
    },
    "hint_ablation_remove": {
        "ja": "register_forward_pre_hook が返すハンドルの remove() を、try ... finally で必ず呼んでください。",
        "ko": "register_forward_pre_hook이 반환하는 핸들의 remove()를 try ... finally 안에서 꼭 호출하세요.",
    },
    "answer_head_range": {
        "ja": "{name} には 0 から {n} までの整数（ヘッドの番号）を入れてください。今の値: {got!r}",
        "ko": "{name}에는 0부터 {n}까지의 정수(헤드 번호)를 넣으세요. 지금 값: {got!r}",
    },
    "answer_weight_range": {
        "ja": "answer_prev_weight は重みの平均なので 0 以上 1 以下のはずです。今の値: {got:.4g}",
        "ko": "answer_prev_weight는 가중치의 평균이므로 0 이상 1 이하여야 합니다. 지금 값: {got:.4g}",
    },
    "answers_plausible": {
        "ja": "✔ 答えの形式に問題はありません。値が合っているかどうかは、隠しテストがあなたの学習させたモデルで確かめます。",
        "ko": "✔ 답의 형식에는 문제가 없습니다. 값이 맞는지는 숨겨진 테스트가 여러분이 학습시킨 모델로 확인합니다.",
    },
    "hidden_role_missing": {
        "ja": "隠しテスト: ヘッド {head} が直前のトークンに置く重みの平均は {w:.3f} です。ヘッドの番号か重みが、学習したモデルと合いません。直前のトークンに最も大きな重みを置いているヘッドは {best} で、その重みは {best_w:.3f} です。",
        "ko": "숨겨진 테스트: 헤드 {head}에서 바로 앞 토큰에 두는 가중치의 평균은 {w:.3f}입니다. 헤드 번호나 가중치가 학습한 모델과 맞지 않습니다(바로 앞을 가장 많이 보는 헤드는 {best}, 그 가중치는 {best_w:.3f}).",
    },
    "hidden_role_untrained": {
        "ja": "隠しテスト: 直前のトークンを見るヘッドが育っていません（最大でも重み {w:.3f}）。学習（演習 1 と学習のセル）を見直してください。",
        "ko": "숨겨진 테스트: 바로 앞 토큰을 보는 헤드가 생기지 않았습니다(가중치 최대 {w:.3f}). 학습(연습 문제 1과 학습 셀)을 다시 확인하세요.",
    },
    "progress_training": {"ja": "学習", "ko": "학습"},
    "progress_compare": {"ja": "比較の学習", "ko": "비교 학습"},
    "fig_loss_title": {"ja": "学習中の損失", "ko": "학습 중 손실"},
    "fig_step_axis": {"ja": "ステップ", "ko": "스텝"},
    "fig_loss_axis": {"ja": "損失（交差エントロピー）", "ko": "손실(교차 엔트로피)"},
    "fig_compare_title": {
        "ja": "幅 {w} のヘッド 1 つ と 幅 {d} のヘッド {h} つ（シードごと）",
        "ko": "폭 {w}인 헤드 1개와 폭 {d}인 헤드 {h}개(시드별)",
    },
    "fig_compare_label": {"ja": "ヘッド {h} つ × 幅 {d}", "ko": "헤드 {h}개 × 폭 {d}"},
    "fig_final_loss_axis": {"ja": "学習後の損失（対数目盛）", "ko": "학습 후 손실(로그 눈금)"},
    "table_heads": {"ja": "ヘッド数 × 幅", "ko": "헤드 수 × 폭"},
    "table_params": {"ja": "パラメータ数", "ko": "파라미터 수"},
    "table_seed": {"ja": "シード", "ko": "시드"},
    "table_loss": {"ja": "損失", "ko": "손실"},
    "table_acc_first": {"ja": "正解率（先頭）", "ko": "정확도(첫 토큰)"},
    "table_acc_prev": {"ja": "正解率（直前）", "ko": "정확도(바로 앞 토큰)"},
    "table_prev_weight": {"ja": "直前への重み", "ko": "바로 앞 토큰 가중치"},
    "table_first_weight": {"ja": "先頭への重み", "ko": "첫 토큰 가중치"},
    "table_position": {"ja": "位置 t", "ko": "위치 t"},
    "table_token": {"ja": "トークン", "ko": "토큰"},
    "table_answer_first": {"ja": "答え 1（先頭）", "ko": "정답 1(첫 토큰)"},
    "table_answer_prev": {"ja": "答え 2（直前）", "ko": "정답 2(바로 앞 토큰)"},
    "row_before": {"ja": "学習前", "ko": "학습 전"},
    "row_after": {"ja": "学習後", "ko": "학습 후"},
    "row_none": {"ja": "消さない", "ko": "끄지 않음"},
    "table_uniform": {"ja": "一様なら", "ko": "균일할 때"},
    "table_loss_first": {"ja": "損失（問い 1 だけ）", "ko": "손실(질문 1만)"},
    "table_loss_prev": {"ja": "損失（問い 2 だけ）", "ko": "손실(질문 2만)"},
    "table_loss_without": {"ja": "層 ＼ 消したヘッド", "ko": "층 \\ 끈 헤드"},
    "base_loss": {"ja": "ヘッドを消さないときの損失: {v:.3f}", "ko": "헤드를 끄지 않았을 때의 손실: {v:.3f}"},
    "toy_vocab": {"ja": "あいうえおかきくけこさしすせそた", "ko": "가나다라마바사아자차카타파하거너"},
    # --- lesson 6 ------------------------------------------------------------------
    "flops_keys": {
        "ja": "{name} はキーが {want} の辞書を返してください。返ってきた辞書のキー（辞書でなければ型）: {got}",
        "ko": "{name}에서는 키가 {want}인 딕셔너리를 반환하세요. 반환된 딕셔너리의 키(딕셔너리가 아니면 타입): {got}",
    },
    "flops_not_int": {
        "ja": "{step} の値は int にしてください（今は {kind}）。回数やバイト数は整数なので、割り算には / ではなく // を使います。テンソルを返しているなら int(...) で数に直してください。",
        "ko": "{step}의 값은 int여야 합니다(지금은 {kind}). 횟수나 바이트 수는 정수이므로 나눗셈에는 / 대신 //를 씁니다. 텐서를 반환했다면 int(...)로 숫자로 바꾸세요.",
    },
    "flops_differs": {
        "ja": "{sizes} のとき、{step} の FLOPs が正しくありません（返した値: {got:,}、正しい値: {want:,}）。",
        "ko": "{sizes}일 때 {step}의 FLOPs가 올바르지 않습니다(반환: {got:,}, 올바른 값: {want:,}).",
    },
    "hint_flops_macs": {
        "ja": "返した値が正しい値のちょうど半分です（積和の回数を数えたようです）。積和1回は掛け算と足し算の2 FLOPs なので、(n×k) と (k×m) の積は 2·n·m·k FLOPs です。",
        "ko": "반환값이 올바른 값의 딱 절반입니다(곱셈-누산 횟수를 센 것 같습니다). 곱셈-누산 한 번은 곱셈과 덧셈으로 2 FLOPs이므로 (n×k)와 (k×m)의 곱은 2·n·m·k FLOPs입니다.",
    },
    "hint_flops_heads": {
        "ja": "ヘッド1つぶんしか数えていません。スコアと加重平均はヘッドごとに計算するので、H を掛けます（H·D = E なので 2·B·T²·E になります）。",
        "ko": "헤드 하나에 대한 값만 셌습니다. 점수와 가중 평균은 헤드마다 계산하므로 H를 곱하세요(H·D = E이므로 2·B·T²·E가 됩니다).",
    },
    "hint_flops_qkv3": {
        "ja": "qkv が正しい値の 3 分の 1 です（Q だけを数えたようです）。Q, K, V の3つぶんを数えてください。射影は (E × 3E) の行列1つなので 2·B·T·E·3E です。",
        "ko": "qkv가 올바른 값의 3분의 1입니다(Q만 셌습니다). Q, K, V 세 개를 모두 세세요. 투영은 (E × 3E) 행렬 하나이므로 2·B·T·E·3E입니다.",
    },
    "hint_flops_batch": {
        "ja": "バッチの大きさ B を掛けていません。系列 B 本それぞれに同じ計算をします。",
        "ko": "배치 크기 B를 곱하지 않았습니다. 시퀀스 B개 각각에 같은 계산을 합니다.",
    },
    "kv_bytes_differs": {
        "ja": "{sizes}、dtype={dtype} のとき、返した値 {got:,} バイトは正しくありません（正しい値: {want:,} バイト）。",
        "ko": "{sizes}, dtype={dtype}일 때 반환한 {got:,}바이트는 올바르지 않습니다(올바른 값: {want:,}바이트).",
    },
    "hint_kv_both": {
        "ja": "返した値が正しい値のちょうど半分です。キャッシュにはキーとバリューの両方を保存するので、2 を掛けます。",
        "ko": "반환값이 올바른 값의 딱 절반입니다. 캐시에는 키와 밸류를 모두 저장하므로 2를 곱합니다.",
    },
    "hint_kv_bits": {
        "ja": "返した値が正しい値の 8 倍です。element_size() はすでにバイト数です。ビットに直す必要はありません。",
        "ko": "반환값이 올바른 값의 8배입니다. element_size()는 이미 바이트 수입니다. 비트로 바꿀 필요가 없습니다.",
    },
    "hint_kv_layers": {
        "ja": "層の数 n_layer を掛けていません。層ごとに別のキャッシュがあります。",
        "ko": "층 수 n_layer를 곱하지 않았습니다. 층마다 따로 캐시가 있습니다.",
    },
    "hint_kv_dtype": {
        "ja": "要素のバイト数を dtype によらない決まった値（2 や 4）にしています。torch.empty((), dtype=dtype).element_size() で dtype から求めてください。",
        "ko": "원소 하나의 바이트 수를 dtype과 상관없이 고정된 값(2나 4)으로 썼습니다. torch.empty((), dtype=dtype).element_size()로 dtype에서 구하세요.",
    },
    "tiled_differs": {
        "ja": "tiled_attention の結果が SDPA と一致しません（causal={causal}、最大誤差 {err:.3g}）。",
        "ko": "tiled_attention의 결과가 SDPA와 일치하지 않습니다(causal={causal}, 최대 오차 {err:.3g}).",
    },
    "hint_tiled_sum": {
        "ja": "ブロックごとにソフトマックスをとって、その結果をそのまま足しています（上で見た flash_attention_concept と同じ誤りです）。これでは各ブロックの重みの和がそれぞれ 1 になり、1 行の合計がブロックの数になります。ソフトマックスはブロックごとにとらず、最大値 m と指数の和 ℓ を持ち歩いて acc を更新し、最後に acc を ℓ で割ってください。",
        "ko": "블록마다 소프트맥스를 적용한 결과를 그대로 더하고 있습니다(위에서 본 flash_attention_concept와 같은 오류입니다). 블록별 소프트맥스는 각각 합이 1이라서 한 행의 합계가 블록 수가 됩니다. 소프트맥스를 블록마다 따로 적용하지 말고, 최댓값 m과 지수의 합 ℓ을 유지하며 acc를 갱신한 뒤 마지막에 acc를 ℓ로 나누세요.",
    },
    "hint_tiled_rescale": {
        "ja": "最大値が上がったときに、acc を exp(m − m') 倍していません。ℓ と同じく acc も新しい最大値を基準に直します。",
        "ko": "최댓값이 올랐을 때 acc에 exp(m − m')을 곱하지 않았습니다. ℓ과 마찬가지로 acc도 새 최댓값을 기준으로 고칩니다.",
    },
    "hint_tiled_normalize": {
        "ja": "最後に acc を ℓ で割っていません。acc は、まだ ℓ で割って正規化していない和です。最後に acc / l を返してください。",
        "ko": "마지막에 acc를 ℓ로 나누지 않았습니다. acc는 정규화하기 전(ℓ로 나누기 전)의 합입니다. 마지막에 acc / l을 반환하세요.",
    },
    "hint_tiled_tail": {
        "ja": "最後の短いブロックが抜けています。T が block_size で割り切れないときも、range(0, T, block_size) とスライスで最後まで処理します。",
        "ko": "마지막 짧은 블록이 빠졌습니다. T가 block_size로 나누어떨어지지 않아도 range(0, T, block_size)와 슬라이스로 끝까지 처리합니다.",
    },
    "hint_tiled_nan": {
        "ja": "m と m' がどちらも −∞ だと、exp(m − m') が exp(−∞ + ∞) = NaN になります。ある行のスコアがそれまで全部 −∞ だったときに起こります。ブロックを位置 0 から順に処理しているか、因果マスクの向き（キーの位置 > クエリの位置を消す）を確かめてください。",
        "ko": "m과 m'이 모두 −∞이면 exp(m − m')이 exp(−∞ + ∞) = NaN이 됩니다. 어떤 행의 점수가 그때까지 모두 −∞였을 때 생깁니다. 블록을 위치 0부터 차례로 처리하는지, 인과 마스크의 방향(키의 위치 > 쿼리의 위치를 지움)이 맞는지 확인하세요.",
    },
    "hint_causal_6": {
        "ja": "因果マスクがかかっていません。キーの位置がクエリの位置より後ろのスコアを −∞ にしてから、ソフトマックスをとります。",
        "ko": "인과 마스크가 적용되지 않았습니다. 키의 위치가 쿼리의 위치보다 뒤인 점수를 −∞로 만든 다음 소프트맥스를 적용합니다.",
    },
    "gqa_groups_divide": {
        "ja": "n_head は n_kv_head で割り切れる必要があります（今は n_head={h}、n_kv_head={g}）。1 つの KV ヘッドを n_head / n_kv_head 個のヘッドで共有します。",
        "ko": "n_head는 n_kv_head로 나누어떨어져야 합니다(지금 n_head={h}, n_kv_head={g}). KV 헤드 하나를 헤드 n_head / n_kv_head개가 함께 씁니다.",
    },
    "gqa_no_error": {
        "ja": "GroupedQueryAttention{args} で ValueError が出ません（assert などほかの例外ではなく、ValueError を出してください）。割り切れない大きさのまま作ると、あとで形状の合わない計算になります。",
        "ko": "GroupedQueryAttention{args}에서 ValueError가 나지 않습니다(assert 같은 다른 예외가 아니라 ValueError를 내세요). 나누어떨어지지 않는 크기로 만들면 나중에 모양이 맞지 않는 계산이 됩니다.",
    },
    "hint_gqa_error": {
        "ja": "__init__ で embed_dim % n_head と n_head % n_kv_head を確かめ、0 でなければ ValueError を出してください。",
        "ko": "__init__에서 embed_dim % n_head와 n_head % n_kv_head를 확인하고, 0이 아니면 ValueError를 내세요.",
    },
    "hint_gqa_weights_heads": {
        "ja": "重みの形状が (B, H, T, T) になっていません。重みは KV ヘッドの数 G ではなく、クエリのヘッドの数 H だけ作ります。キーとバリューを repeat_interleave で H 個に広げてからスコアを計算してください。",
        "ko": "가중치의 모양이 (B, H, T, T)가 아닙니다. 가중치는 KV 헤드 수 G가 아니라 쿼리 헤드 수 H만큼 만듭니다. 키와 밸류를 repeat_interleave로 H개로 늘린 뒤 점수를 계산하세요.",
    },
    "hint_gqa_repeat": {
        "ja": "KV ヘッドの並べ方が違います。repeat では 0, 1, 0, 1, … と並びます。ヘッド h が KV ヘッド h // (H // G) を使うように repeat_interleave(H // G, dim=1) を使ってください。",
        "ko": "KV 헤드를 늘어놓는 순서가 다릅니다. repeat을 쓰면 0, 1, 0, 1, … 순서가 됩니다. 헤드 h가 KV 헤드 h // (H // G)를 쓰도록 repeat_interleave(H // G, dim=1)을 쓰세요.",
    },
    "hint_gqa_kv_swapped": {
        "ja": "キーとバリューが入れ替わっています。kv_proj の出力の前半がキー、後半がバリューです。",
        "ko": "키와 밸류가 뒤바뀌었습니다. kv_proj 출력의 앞쪽 절반이 키, 뒤쪽 절반이 밸류입니다.",
    },
    "cache_not_pair": {
        "ja": "キャッシュは (k, v) のタプルで返してください。返ってきたのは {kind} です。",
        "ko": "캐시는 (k, v) 튜플로 반환하세요. 반환된 것: {kind}",
    },
    "hint_cat_dim": {
        "ja": "torch.cat でつなぐテンソルは、つなぐ軸以外の大きさがそろっている必要があります。どの軸でつなぐか（dim=）を確かめてください。KV キャッシュなら系列の軸 dim=2 です。",
        "ko": "torch.cat으로 이어 붙이는 텐서들은 이어 붙이는 축을 뺀 나머지 축의 크기가 같아야 합니다. 어느 축으로 이어 붙이는지(dim=) 확인하세요. KV 캐시라면 시퀀스 축 dim=2입니다.",
    },
    "returned_not_cache_pair": {
        "ja": "{name} は (出力, キャッシュ) の2つを返してください。返ってきたのは {kind} です。",
        "ko": "{name}에서는 (출력, 캐시) 두 개를 반환해야 합니다. 반환된 것: {kind}",
    },
    "what_cache": {"ja": "キャッシュの {part}", "ko": "캐시의 {part}"},
    "hint_cache_concat": {
        "ja": "キャッシュは (B, H, これまでのトークン数, D) です。古いキャッシュと新しいキー・バリューを torch.cat(..., dim=2)（系列の軸）でつなげ、新しい k, v だけでなく、つなげたあとの (k, v) をキャッシュとして返してください。",
        "ko": "캐시는 (B, H, 지금까지의 토큰 수, D)입니다. 이전 캐시와 새 키·밸류를 torch.cat(..., dim=2)(시퀀스 축)로 이어 붙이고, 새 k, v만이 아니라 이어 붙인 (k, v)를 캐시로 반환하세요.",
    },
    "cache_differs": {
        "ja": "位置 {lo} 以上 {hi} 未満のトークンの出力が、全体を一度に計算した結果と違います（最大誤差 {err:.3g}）。",
        "ko": "위치 {lo} 이상 {hi} 미만 토큰의 출력이 전체를 한 번에 계산한 결과와 다릅니다(최대 오차 {err:.3g}).",
    },
    "hint_cache_mask_offset": {
        "ja": "マスクが新しいトークンの絶対位置に合っていません。tril() のままだと、キャッシュがあるとき新しいトークン i は先頭の i+1 個のキーしか見られません。対角線を T_past だけ右にずらし、tril(diagonal=T_past) にしてください。",
        "ko": "마스크가 새 토큰의 절대 위치에 맞지 않습니다. tril()을 그대로 쓰면 캐시가 있을 때 새 토큰 i가 맨 앞의 키 i+1개만 보게 됩니다. 대각선을 T_past만큼 오른쪽으로 밀어 tril(diagonal=T_past)로 만드세요.",
    },
    "hint_cache_unused": {
        "ja": "新しいトークンが、キャッシュにある過去のキーとバリューを見ていません。スコアを計算する前に、キャッシュと新しい k, v をつなげてください。",
        "ko": "새 토큰이 캐시에 있는 이전 키와 밸류를 보지 않습니다. 점수를 계산하기 전에 캐시와 새 k, v를 이어 붙이세요.",
    },
    "cpu_name": {"ja": "CPU（論理コア数 {cores}、PyTorch のスレッド数 {threads}）", "ko": "CPU(논리 코어 {cores}개, PyTorch 스레드 {threads}개)"},
    "progress_measure": {"ja": "測定", "ko": "측정"},
    "progress_decode": {"ja": "生成", "ko": "생성"},
    "measured_on": {"ja": "測定したデバイス: {device}、データ型: {dtype}", "ko": "측정한 장치: {device}, 자료형: {dtype}"},
    "table_T": {"ja": "系列長 T", "ko": "시퀀스 길이 T"},
    "table_gflops": {"ja": "GFLOPs（合計）", "ko": "GFLOPs(합계)"},
    "table_quadratic_share": {"ja": "T² の項の割合", "ko": "T² 항의 비율"},
    "table_ms_naive": {"ja": "素朴な実装 [ms]", "ko": "단순한 구현 [ms]"},
    "table_ms_sdpa": {"ja": "SDPA [ms]", "ko": "SDPA [ms]"},
    "table_speedup": {"ja": "SDPA は何倍速いか", "ko": "SDPA 속도 향상(배)"},
    "table_mib_naive": {"ja": "素朴な実装 [MiB]", "ko": "단순한 구현 [MiB]"},
    "table_mib_sdpa": {"ja": "SDPA [MiB]", "ko": "SDPA [MiB]"},
    "table_mib_estimate": {"ja": "見積もり B·H·T²·バイト数 [MiB]", "ko": "추정 B·H·T²·바이트 [MiB]"},
    "table_mib_peak": {"ja": "ピークメモリ [MiB]", "ko": "최대 메모리 사용량 [MiB]"},
    "table_ms": {"ja": "時間 [ms]", "ko": "시간 [ms]"},
    "table_shape": {"ja": "層 × ヘッド × D", "ko": "층 × 헤드 × D"},
    "table_kind": {"ja": "方式", "ko": "방식"},
    "table_params_layer": {"ja": "1層のパラメータ数", "ko": "한 층의 파라미터 수"},
    "table_cache_mib": {"ja": "KV キャッシュ [MiB]", "ko": "KV 캐시 [MiB]"},
    "label_naive": {"ja": "素朴な実装", "ko": "단순한 구현"},
    "label_tiled": {"ja": "タイル分割（ブロック {b}）", "ko": "타일 분할(블록 {b})"},
    "label_checkpoint": {"ja": "勾配チェックポイントあり", "ko": "그래디언트 체크포인팅 사용"},
    "label_no_checkpoint": {"ja": "勾配チェックポイントなし", "ko": "그래디언트 체크포인팅 사용 안 함"},
    "seed_flash_error": {
        "ja": "flash_attention_concept と SDPA の差: 最大 {err:.3f}。1 行の重みの合計: {total:.1f}（1 のはずです）",
        "ko": "flash_attention_concept와 SDPA의 차이: 최대 {err:.3f}. 한 행의 가중치 합계: {total:.1f}(1이어야 합니다)",
    },
    "tiled_error": {
        "ja": "あなたの tiled_attention と SDPA の差（T = 2048、因果マスクあり）: 最大 {err:.2e}",
        "ko": "여러분의 tiled_attention과 SDPA의 차이(T = 2048, 인과 마스크 있음): 최대 {err:.2e}",
    },
    "cache_check": {
        "ja": "キャッシュを使った出力と一度に計算した出力の差: 最大 {err:.2e}。キャッシュの大きさ: {got:,} バイト（演習 4 の見積もり: {want:,} バイト）",
        "ko": "캐시를 쓴 출력과 한 번에 계산한 출력의 차이: 최대 {err:.2e}. 캐시 크기: {got:,}바이트(연습 문제 4의 추정: {want:,}바이트)",
    },
    "cache_speed": {
        "ja": "{n} トークンの生成: 毎回計算し直すと {slow:.2f} 秒、KV キャッシュを使うと {fast:.2f} 秒（KV キャッシュのほうが {ratio:.1f} 倍速い）",
        "ko": "토큰 {n}개 생성: 매번 다시 계산하면 {slow:.2f}초, KV 캐시를 쓰면 {fast:.2f}초(KV 캐시 쪽이 {ratio:.1f}배 빠름)",
    },
    "autocast_dtypes": {
        "ja": "入力: {x}、autocast の中の出力: {y}、アテンションの重み: {w}。float32 で計算した出力との差: 最大 {err:.2e}",
        "ko": "입력: {x}, autocast 안의 출력: {y}, 어텐션 가중치: {w}. float32로 계산한 출력과의 차이: 최대 {err:.2e}",
    },
    "deprecated_warning": {"ja": "古い書き方の警告（{kind}）: {text}", "ko": "옛 방식에서 나온 경고({kind}): {text}"},
    "checkpoint_grads": {
        "ja": "チェックポイントあり・なしの勾配の差: 最大 {err:.2e}",
        "ko": "체크포인팅을 쓸 때와 쓰지 않을 때의 기울기 차이: 최대 {err:.2e}",
    },
    "fig_cost_time_title": {"ja": "時間（順伝播）", "ko": "시간(순전파)"},
    "fig_cost_memory_title": {"ja": "ピークメモリ", "ko": "최대 메모리 사용량"},
    "fig_seq_len_axis": {"ja": "系列長 T（対数目盛）", "ko": "시퀀스 길이 T(로그 눈금)"},
    "fig_seconds_axis": {"ja": "秒（対数目盛）", "ko": "초(로그 눈금)"},
    "fig_mib_axis": {"ja": "MiB（対数目盛）", "ko": "MiB(로그 눈금)"},
    "fig_slope": {"ja": "傾き {k}", "ko": "기울기 {k}"},
    # pictures --------------------------------------------------------------------
    "fig_weights_title": {
        "ja": "アテンションの重み（温度 τ = {tau:.2f}{scaled}）",
        "ko": "어텐션 가중치(온도 τ = {tau:.2f}{scaled})",
    },
    "fig_scaled_suffix": {"ja": "、√d_k で割る", "ko": ", √d_k로 나눔"},
    "fig_unscaled_suffix": {"ja": "、割らない", "ko": ", 나누지 않음"},
    "fig_key_axis": {"ja": "キー（見られる側）", "ko": "키(참조되는 쪽)"},
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
        "ja": "τ を小さくすると重みが1か所に集まり（飽和）、大きくすると一様に近づきます。エントロピーは重みがどれだけ広がっているかの目安で、0 なら1か所だけ、log T なら全体に均等です。「クエリ」で1つの行を棒グラフに、「比べるヘッド」で2つのヘッドの差を表示します。",
        "ko": "τ를 작게 하면 가중치가 한 곳에 몰리고(포화), 크게 하면 고르게 퍼집니다. 엔트로피는 가중치가 얼마나 퍼져 있는지를 나타내며, 0이면 한 곳만, log T면 전체를 고르게 봅니다. '쿼리'를 고르면 그 행을 막대그래프로, '비교할 헤드'를 고르면 두 헤드의 차이를 보여 줍니다.",
    },
    "widget_layer": {"ja": "層", "ko": "층"},
    "fig_layer": {"ja": "層 {l}", "ko": "층 {l}"},
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
    "fig_variance_title": {
        "ja": "q·k の分散（d_k ごと）",
        "ko": "q·k의 분산(d_k별)",
    },
    "fig_maxweight_title": {
        "ja": "ソフトマックスの最大の重み（平均）",
        "ko": "소프트맥스 최대 가중치(평균)",
    },
    "fig_with_scaling": {"ja": "√d_k で割る", "ko": "√d_k로 나눔"},
    "fig_without_scaling": {"ja": "割らない", "ko": "나누지 않음"},
    "table_dk": {"ja": "d_k", "ko": "d_k"},
    "table_var_raw": {"ja": "分散（割らない）", "ko": "분산(나누지 않음)"},
    "table_var_scaled": {"ja": "分散（√d_k で割る）", "ko": "분산(√d_k로 나눔)"},
    "table_max_raw": {"ja": "最大の重み（割らない）", "ko": "최대 가중치(나누지 않음)"},
    "table_max_scaled": {"ja": "最大の重み（√d_k で割る）", "ko": "최대 가중치(√d_k로 나눔)"},
}


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        # Neither language is known yet, so say it in both.
        raise ValueError(" / ".join(MESSAGES["bad_language"][x].format(lang=lang) for x in LANGUAGES))
    _current = lang


def get_language() -> str:
    return _current


def t(key: str, **fields) -> str:
    """The message `key` in the current language, with `fields` filled in."""
    return MESSAGES[key][_current].format(**fields)
